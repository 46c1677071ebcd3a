/// A tiny JSON emitter (the core avoids Foundation: it costs memory at start-up).
public struct JSONWriter {
    public private(set) var text = ""
    private var needsComma = [false]

    public init() {}

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
    }
    private mutating func key(_ k: String?) {
        separator()
        if let k { text += JSONWriter.quote(k) + ":" }
    }

    public mutating func beginObject(_ k: String? = nil) { key(k); text += "{"; needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); text += "}" }
    public mutating func beginArray(_ k: String? = nil) { key(k); text += "["; needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); text += "]" }
    public mutating func value(_ k: String? = nil, _ v: String) { key(k); text += JSONWriter.quote(v) }
    public mutating func value(_ k: String? = nil, _ v: Int) { key(k); text += String(v) }
    public mutating func value(_ k: String? = nil, _ v: Bool) { key(k); text += v ? "true" : "false" }
    public mutating func value(_ k: String? = nil, _ v: Double) {
        key(k)
        text += JSONWriter.number(v)
    }

    /// Integers print without a fraction; others with up to 3 decimals.
    public static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        let scaled = (v * 1000).rounded() / 1000
        return String(scaled)
    }

    public static func quote(_ s: String) -> String {
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
