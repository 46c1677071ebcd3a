/// URLs as the cache keys them and messages show them: a password in the user information
/// (`http://user:secret@host/`) becomes `***`, so that it is neither written to disk nor printed.
package enum URLText {
    /// `url` with the password of its user information replaced by `***` (unchanged without one).
    package static func masked(_ url: String) -> String {
        let b = Array(url.utf8)
        var start: Int?
        for i in 0..<max(0, b.count - 2) where b[i] == 0x3A && b[i + 1] == 0x2F && b[i + 2] == 0x2F { start = i + 3; break }
        guard let start else { return url }
        var end = start
        while end < b.count && b[end] != 0x2F && b[end] != 0x3F && b[end] != 0x23 { end += 1 }   // / ? #
        guard let at = b[start..<end].lastIndex(of: 0x40),                                     // @
              let colon = b[start..<at].firstIndex(of: 0x3A) else { return url }
        return String(decoding: b[..<colon] + Array(":***".utf8) + b[at...], as: UTF8.self)
    }
}
