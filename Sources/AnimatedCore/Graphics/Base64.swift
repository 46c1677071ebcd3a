/// Standard base64 (RFC 4648, with padding), as terminal image protocols carry binary data.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends the encoding of `bytes` to `out`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let n = bytes.count
        out.reserveCapacity(out.count + (n + 2) / 3 * 4)
        alphabet.withUnsafeBufferPointer { a in
            var i = 0
            while i + 3 <= n {
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                out.append(a[Int(v >> 18)]); out.append(a[Int((v >> 12) & 63)])
                out.append(a[Int((v >> 6) & 63)]); out.append(a[Int(v & 63)])
                i += 3
            }
            if n - i == 1 {
                let v = UInt32(bytes[i]) << 16
                out.append(a[Int(v >> 18)]); out.append(a[Int((v >> 12) & 63)]); out.append(0x3D); out.append(0x3D)
            } else if n - i == 2 {
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
                out.append(a[Int(v >> 18)]); out.append(a[Int((v >> 12) & 63)])
                out.append(a[Int((v >> 6) & 63)]); out.append(0x3D)
            }
        }
    }
}
