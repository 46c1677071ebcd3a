/// A tiny JSON emitter (the core avoids Foundation: it costs memory at start-up).
struct JSONWriter {
    private(set) var text = ""
    private var needsComma = [false]

    init() {}

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
    }
    private mutating func key(_ k: String?) {
        separator()
        if let k { text += JSONWriter.quote(k) + ":" }
    }

    mutating func beginObject(_ k: String? = nil) { key(k); text += "{"; needsComma.append(false) }
    mutating func endObject() { needsComma.removeLast(); text += "}" }
    mutating func beginArray(_ k: String? = nil) { key(k); text += "["; needsComma.append(false) }
    mutating func endArray() { needsComma.removeLast(); text += "]" }
    mutating func value(_ k: String? = nil, _ v: String) { key(k); text += JSONWriter.quote(v) }
    mutating func value(_ k: String? = nil, _ v: Int) { key(k); text += String(v) }
    mutating func value(_ k: String? = nil, _ v: Bool) { key(k); text += v ? "true" : "false" }
    mutating func value(_ k: String? = nil, _ v: Double) {
        key(k)
        text += JSONWriter.number(v)
    }

    /// Integers print without a fraction; others with up to 3 decimals.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        let scaled = (v * 1000).rounded() / 1000
        return String(scaled)
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
