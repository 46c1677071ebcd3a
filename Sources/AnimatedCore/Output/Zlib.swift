import CZlib

/// zlib (RFC 1950) compression of frame payloads, as the kitty graphics protocol's `o=z` expects.
enum Zlib {
    /// `bytes` compressed at `level` (1 fastest … 9 smallest). zlib's one-shot `compress2`
    /// into a buffer of `compressBound` bytes cannot run out of room, so it only fails on
    /// memory exhaustion, which traps like any other allocation failure.
    static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32) -> [UInt8] {
        let bound = Int(compressBound(uLong(bytes.count)))
        return [UInt8](unsafeUninitializedCapacity: bound) { out, n in
            var size = uLongf(bound)
            let rc = compress2(out.baseAddress!, &size,
                               bytes.baseAddress!.assumingMemoryBound(to: Bytef.self),
                               uLong(bytes.count), level)
            precondition(rc == Z_OK, "zlib compress2 failed (\(rc))")
            n = Int(size)
        }
    }

    /// `bytes` inflated, if they are a complete zlib stream of at most `limit` bytes (tests,
    /// and the protocol's own round-trip checks).
    static func decompress(_ bytes: [UInt8], limit: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max(1, limit))
        var size = uLongf(out.count)
        let rc = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { i in
                uncompress(o.baseAddress!, &size, i.baseAddress!, uLong(i.count))
            }
        }
        guard rc == Z_OK else { return nil }
        out.removeSubrange(Int(size)...)
        return out
    }
}

/// Base64 (RFC 4648, with padding): how the kitty protocol carries binary payloads.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

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
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
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
