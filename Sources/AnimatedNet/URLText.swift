/// URLs as the cache keys them and messages show them: a password in the user information
/// (`http://user:secret@host/`) becomes `***`, so that it is neither written to disk nor printed.
package enum URLText {
    /// `url` with the password of its user information replaced by `***` (unchanged without one).
    package static func masked(_ url: String) -> String {
        let b = Array(url.utf8)
        guard let (start, end) = authority(b) else { return url }
        guard let at = b[start..<end].lastIndex(of: 0x40),                                     // @
              let colon = b[start..<at].firstIndex(of: 0x3A) else { return url }
        return String(decoding: b[..<colon] + Array(":***".utf8) + b[at...], as: UTF8.self)
    }

    /// Where the authority (user information, host, port) of `b` starts and ends: after the
    /// first `://`, up to the first `/`, `?` or `#` (nil: no `://`).
    private static func authority(_ b: [UInt8]) -> (Int, Int)? {
        var start: Int?
        for i in 0..<max(0, b.count - 2) where b[i] == 0x3A && b[i + 1] == 0x2F && b[i + 2] == 0x2F { start = i + 3; break }
        guard let start else { return nil }
        var end = start
        while end < b.count && b[end] != 0x2F && b[end] != 0x3F && b[end] != 0x23 { end += 1 }   // / ? #
        return (start, end)
    }

    /// `url` as a browser requests it: after the host, a space, a control character, `"`, `<`,
    /// `>`, a backtick and every non-ASCII byte percent-encoded (UTF-8), as Chromium does; the
    /// scheme and host as they are (a host is not percent-encoded), `%` left alone (already
    /// encoded). libcurl refused a pasted `https://host/my file.gif` as malformed.
    package static func requestForm(_ url: String) -> String {
        let b = Array(url.utf8)
        guard let (_, path) = authority(b) else { return url }
        let encoded: (UInt8) -> Bool = { $0 <= 0x20 || $0 >= 0x7F || $0 == 0x22 || $0 == 0x3C || $0 == 0x3E || $0 == 0x60 }
        guard b[path...].contains(where: encoded) else { return url }
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array(b[..<path])
        for c in b[path...] {
            if encoded(c) { out += [0x25, hex[Int(c >> 4)], hex[Int(c & 15)]] } else { out.append(c) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
