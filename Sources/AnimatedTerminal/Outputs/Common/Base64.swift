import AnimatedCore

/// Standard base64 (RFC 4648, with padding), as terminal image protocols carry binary data
/// (kitty payloads, iTerm2 files).
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends the encoding of `bytes` to `out`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out += encode(bytes)
    }

    /// The encoding of `bytes`, written straight into a new array.
    static func encode(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let n = bytes.count
        let outCount = (n + 2) / 3 * 4
        return [UInt8](unsafeUninitializedCapacity: outCount) { out, written in
            alphabet.withUnsafeBufferPointer { abc in
                let a = abc.baseAddress!, o = out.baseAddress!
                let src = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                var i = 0, j = 0
                while i + 3 <= n {
                    let v = UInt32(src![i]) << 16 | UInt32(src![i + 1]) << 8 | UInt32(src![i + 2])
                    o[j] = a[Int(v >> 18)]; o[j + 1] = a[Int(v >> 12 & 63)]
                    o[j + 2] = a[Int(v >> 6 & 63)]; o[j + 3] = a[Int(v & 63)]
                    i += 3; j += 4
                }
                if i < n {
                    let rest = n - i
                    let v = UInt32(src![i]) << 16 | (rest == 2 ? UInt32(src![i + 1]) << 8 : 0)
                    o[j] = a[Int(v >> 18)]; o[j + 1] = a[Int(v >> 12 & 63)]
                    o[j + 2] = rest == 2 ? a[Int(v >> 6 & 63)] : 0x3D
                    o[j + 3] = 0x3D
                }
            }
            written = outCount
        }
    }

    /// Decodes padded base64; nil on any other byte (tests parse our own output back).
    package static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var table = [Int16](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int16(i) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var acc: UInt32 = 0, bits = 0, pad = 0
        for c in text {
            if c == 0x3D { pad += 1; continue }
            guard pad == 0, table[Int(c)] >= 0 else { return nil }
            acc = acc << 6 | UInt32(table[Int(c)]); bits += 6
            if bits >= 8 { bits -= 8; out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits))) }
        }
        guard (text.count - pad) % 4 != 1, pad <= 2 else { return nil }
        return out
    }
}
