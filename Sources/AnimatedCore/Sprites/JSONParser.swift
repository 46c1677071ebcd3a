/// A small, strict JSON parser (RFC 8259) for atlas files: no Foundation (no start-up cost),
/// bounded nesting and input size, and a clean `AnimatedError` on any malformed or hostile input.
///
/// Strict means: no comments, trailing commas, NaN/Infinity, leading zeros, unescaped control
/// characters, invalid UTF-8, lone surrogates or duplicate keys. A UTF-8 byte-order mark is
/// skipped (some Windows exporters write one).
struct JSONParser {
    struct Limits: Sendable {
        /// Largest accepted document, in bytes.
        var maxBytes: Int
        /// Deepest accepted nesting of arrays and objects.
        var maxDepth: Int
        init(maxBytes: Int = 32 << 20, maxDepth: Int = 64) {
            self.maxBytes = maxBytes; self.maxDepth = maxDepth
        }
    }

    /// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
    static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(AnimatedError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw .limitExceeded("JSON document of \(bytes.count) bytes exceeds \(limits.maxBytes) bytes")
        }
        var result: Result<JSONValue, AnimatedError> = .failure(.invalid("JSON: empty document"))
        bytes.withUnsafeBufferPointer { buf in
            var p = JSONParser(buf, maxDepth: limits.maxDepth)
            do throws(AnimatedError) {
                p.skipBOM()
                p.skipWhitespace()
                let v = try p.value(depth: 0)
                p.skipWhitespace()
                if p.pos < p.end { throw p.error("unexpected \(p.describe(p.bytes[p.pos])) after the document") }
                result = .success(v)
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    private let maxDepth: Int
    private var pos = 0
    private var scratch: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes; self.end = bytes.count; self.maxDepth = maxDepth
    }

    // MARK: - Values

    private mutating func value(depth: Int) throws(AnimatedError) -> JSONValue {
        guard pos < end else { throw error("unexpected end of document") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return .object(try object(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try array(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        case let c: throw error("unexpected \(describe(c)), expected a value")
        }
    }

    private mutating func object(depth: Int) throws(AnimatedError) -> JSONObject {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        pos += 1                                    // {
        var members: [(key: String, value: JSONValue)] = []
        var seen = Set<String>()             // used once an object outgrows a linear scan
        skipWhitespace()
        if pos < end && bytes[pos] == UInt8(ascii: "}") { pos += 1; return JSONObject(members) }
        while true {
            skipWhitespace()
            guard pos < end, bytes[pos] == UInt8(ascii: "\"") else { throw expected("a string key") }
            let keyStart = pos
            let key = try string()
            let duplicate: Bool
            if members.count < 16 {
                duplicate = members.contains { $0.key == key }
            } else {
                if seen.isEmpty { seen = Set(members.map(\.key)) }
                duplicate = !seen.insert(key).inserted
            }
            guard !duplicate else {
                pos = keyStart
                throw error("duplicate key \(JSONWriter.quote(key))")
            }
            skipWhitespace()
            guard pos < end, bytes[pos] == UInt8(ascii: ":") else { throw expected("':'") }
            pos += 1
            skipWhitespace()
            members.append((key, try value(depth: depth)))
            skipWhitespace()
            guard pos < end else { throw error("unexpected end of document, expected ',' or '}'") }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "}") { pos += 1; return JSONObject(members) }
            throw expected("',' or '}'")
        }
    }

    private mutating func array(depth: Int) throws(AnimatedError) -> [JSONValue] {
        guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
        pos += 1                                    // [
        var items: [JSONValue] = []
        skipWhitespace()
        if pos < end && bytes[pos] == UInt8(ascii: "]") { pos += 1; return items }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth))
            skipWhitespace()
            guard pos < end else { throw error("unexpected end of document, expected ',' or ']'") }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "]") { pos += 1; return items }
            throw expected("',' or ']'")
        }
    }

    private mutating func literal(_ word: StaticString) throws(AnimatedError) {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        guard end - pos >= n else { throw error("unexpected end of document in a literal") }
        for i in 0..<n where bytes[pos + i] != w[i] { throw error("invalid literal, expected \(word)") }
        pos += n
    }

    /// RFC 8259 number grammar, then the standard library's correctly rounded conversion.
    private mutating func number() throws(AnimatedError) -> Double {
        let start = pos
        func digits(_ p: inout Int, _ b: UnsafeBufferPointer<UInt8>, _ end: Int) -> Int {
            let s = p
            while p < end, b[p] >= UInt8(ascii: "0"), b[p] <= UInt8(ascii: "9") { p += 1 }
            return p - s
        }
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < end, bytes[pos] >= UInt8(ascii: "0"), bytes[pos] <= UInt8(ascii: "9") else {
            throw error("invalid number: expected a digit")
        }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < end, bytes[pos] >= UInt8(ascii: "0"), bytes[pos] <= UInt8(ascii: "9") {
                throw error("invalid number: leading zero")
            }
        } else {
            _ = digits(&pos, bytes, end)
        }
        if pos < end, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            guard digits(&pos, bytes, end) > 0 else { throw error("invalid number: expected a digit after '.'") }
        }
        if pos < end, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            if pos < end, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard digits(&pos, bytes, end) > 0 else { throw error("invalid number: expected a digit in the exponent") }
        }
        guard pos - start <= 400 else { pos = start; throw error("number longer than 400 characters") }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
        guard let v = Double(text), v.isFinite else { pos = start; throw error("number out of range") }
        return v
    }

    private mutating func string() throws(AnimatedError) -> String {
        pos += 1                                    // opening quote
        let start = pos
        // Fast path: no escapes.
        while pos < end {
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                let s = try utf8String(UnsafeBufferPointer(rebasing: bytes[start..<pos]), at: start)
                pos += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("unescaped control character in a string") }
            pos += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<pos]))
        while pos < end {
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                pos += 1
                return try scratch.withUnsafeBufferPointer { (b) throws(AnimatedError) -> String in
                    try utf8String(b, at: start)
                }
            }
            if c < 0x20 { throw error("unescaped control character in a string") }
            if c != UInt8(ascii: "\\") { scratch.append(c); pos += 1; continue }
            pos += 1
            guard pos < end else { break }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard end - pos >= 6, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in a \\u escape")
                    }
                    pos += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw error("unpaired surrogate in a \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw error("unpaired surrogate in a \\u escape")
                }
                appendUTF8(scalar)
            default:
                pos -= 1
                throw error("invalid escape \\\(describeBare(e))")
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(AnimatedError) -> UInt32 {
        guard end - pos >= 4 else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[pos]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in a \\u escape")
            }
            v = v << 4 | UInt32(d)
            pos += 1
        }
        return v
    }

    private mutating func appendUTF8(_ v: UInt32) {
        switch v {
        case 0..<0x80:
            scratch.append(UInt8(v))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | v >> 6)); scratch.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | v >> 12)); scratch.append(UInt8(0x80 | (v >> 6) & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | v >> 18)); scratch.append(UInt8(0x80 | (v >> 12) & 0x3F))
            scratch.append(UInt8(0x80 | (v >> 6) & 0x3F)); scratch.append(UInt8(0x80 | v & 0x3F))
        }
    }

    private func utf8String(_ b: UnsafeBufferPointer<UInt8>, at start: Int) throws(AnimatedError) -> String {
        guard let s = String(validating: b, as: UTF8.self) else {
            throw error("invalid UTF-8 in the string starting", at: start)
        }
        return s
    }

    // MARK: - Whitespace and errors

    private mutating func skipBOM() {
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { pos = 3 }
    }

    private mutating func skipWhitespace() {
        while pos < end {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    private func expected(_ what: String) -> AnimatedError {
        guard pos < end else { return error("unexpected end of document, expected \(what)") }
        return error("unexpected \(describe(bytes[pos])), expected \(what)")
    }

    private func describe(_ c: UInt8) -> String { "'" + describeBare(c) + "'" }
    private func describeBare(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }

    /// "JSON line L column C: message" (1-based; column in bytes).
    private func error(_ message: String, at offset: Int? = nil) -> AnimatedError {
        let at = min(offset ?? pos, end)
        var line = 1, lineStart = 0
        for i in 0..<at where bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
        return .invalid("JSON line \(line) column \(at - lineStart + 1): \(message)")
    }
}
