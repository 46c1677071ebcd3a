import AnimatedCore

/// One request header set by the user (`--header 'Name: value'`).
public struct HTTPHeader: Sendable, Hashable {
    /// The header's name (a token, sent as given).
    public var name: String
    /// The header's value (no control characters).
    public var value: String

    /// A header `name: value`.
    public init(name: String, value: String) {
        self.name = name; self.value = value
    }

    /// `Name: value` (the value's surrounding spaces and tabs dropped); nil without a colon.
    /// Not validated: see `RequestOptions.problem`.
    public init?(parsing line: String) {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        name = String(line[..<colon])
        value = line[line.index(after: colon)...].trimmingSpaces()
    }

    /// Headers that carry credentials: requests with one are never cached (see `RequestOptions`).
    package static let credentialNames: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Headers animplay sets itself or that would break the exchange: conditional requests are
    /// the cache's (a user's If-None-Match would turn a play into a 304 with nothing to show),
    /// ranges and framing are libcurl's.
    package static let reservedNames: Set<String> = ["range", "content-length", "transfer-encoding", "connection",
                                                    "te", "trailer", "upgrade", "keep-alive", "expect"]

    /// Whether `name` is an RFC 9110 token (RFC 7230 §3.2.6): visible ASCII but delimiters.
    package static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { c in
            (0x21...0x7E).contains(c) && !"\"(),/:;<=>?@[\\]{}".utf8.contains(c)
        }
    }

    /// Whether `value` can go on one header line: no CR, LF, NUL or other control (tab aside),
    /// no DEL. (A CR or LF would let the value add headers of its own, or a request.)
    package static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { ($0 >= 0x20 || $0 == 0x09) && $0 != 0x7F }
    }
}

/// What the user adds to a request: headers, a User-Agent, a Referer. Revalidations of a
/// cached copy send the same.
///
/// The cache keys an entry on the URL and these options (`cacheVariant`): two requests that
/// differ in any of them never read each other's entries, and requests without any use the
/// same entries as before they existed. Requests carrying credentials (`Authorization`,
/// `Cookie`, `Proxy-Authorization`: `carriesCredentials`) are neither read from nor written to
/// the cache at all, so a private answer never lands on disk.
public struct RequestOptions: Sendable, Hashable {
    /// Sent as given, in order, after animplay's own (a header of the same name replaces
    /// libcurl's: a `User-Agent` header wins over `userAgent`).
    public var headers: [HTTPHeader]
    /// Replaces `DownloadOptions.userAgent` (nil: that default is sent).
    public var userAgent: String?
    /// The Referer to send, if any.
    public var referer: String?

    /// Options sending `headers`, `userAgent` and `referer` (none by default).
    public init(headers: [HTTPHeader] = [], userAgent: String? = nil, referer: String? = nil) {
        self.headers = headers; self.userAgent = userAgent; self.referer = referer
    }

    /// Nothing set.
    package var isEmpty: Bool { headers.isEmpty && userAgent == nil && referer == nil }

    /// At most this many headers, each line at most `maxLineBytes`.
    package static let maxHeaders = 64
    package static let maxLineBytes = 8192

    /// Why these options cannot be sent (one line naming the header, its name escaped for a
    /// terminal, never its value), nil when they can.
    public func problem() -> String? {
        if headers.count > Self.maxHeaders { return "more than \(Self.maxHeaders) request headers" }
        for h in headers {
            let shown = "'" + TerminalText.escaped(h.name) + "'"
            guard HTTPHeader.isToken(h.name) else {
                return "header name \(shown) is not a token (letters, digits and !#$%&'*+-.^_`|~ only)"
            }
            let lower = h.name.lowercased()
            if lower.hasPrefix("if-") || HTTPHeader.reservedNames.contains(lower) {
                return "header \(shown) is managed by animplay and libcurl; it cannot be set"
            }
            guard HTTPHeader.isValidValue(h.value) else {
                return "header \(shown): the value holds a control character (CR, LF, NUL...)"
            }
            guard h.name.utf8.count + h.value.utf8.count + 2 <= Self.maxLineBytes else {
                return "header \(shown) is longer than \(Self.maxLineBytes) bytes"
            }
        }
        for (what, v) in [("user agent", userAgent), ("referer", referer)] {
            guard let v else { continue }
            guard HTTPHeader.isValidValue(v) else { return "the \(what) holds a control character (CR, LF, NUL...)" }
            guard v.utf8.count <= Self.maxLineBytes else { return "the \(what) is longer than \(Self.maxLineBytes) bytes" }
        }
        return nil
    }

    /// Whether a header carries credentials: such requests bypass the cache.
    public var carriesCredentials: Bool {
        headers.contains { HTTPHeader.credentialNames.contains($0.name.lowercased()) }
    }

    /// The header lines for libcurl's CURLOPT_HTTPHEADER. An empty value is sent as `Name;`
    /// (libcurl's way; `Name:` would remove the header instead).
    var curlLines: [String] {
        headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
    }

    /// What the cache adds to the URL in an entry's key: nil when nothing is set (the entry is
    /// the URL's alone, as in versions before request options); otherwise a digest of the
    /// canonical form (names lowercased, sorted by name keeping the order of repeated names,
    /// values as sent, then user agent and referer) and the names, for `cache info`. Values are
    /// never stored, only their digest (128 bits of two FNV-1a passes: it separates entries, it
    /// is not meant to hide a value; credentials are not cached at all).
    package var cacheVariant: CacheVariant? {
        guard !isEmpty else { return nil }
        let sorted = headers.enumerated().sorted {
            let a = $0.element.name.lowercased(), b = $1.element.name.lowercased()
            return a != b ? a < b : $0.offset < $1.offset
        }.map(\.element)
        var text = ""
        for h in sorted { text += "h \(h.name.lowercased()):\(h.value)\n" }
        if let userAgent { text += "u \(userAgent)\n" }
        if let referer { text += "r \(referer)\n" }
        let bytes = Array(text.utf8)
        let digest = bytes.withUnsafeBytes {
            hex64(HTTPCache.fnv1a($0, HTTPCache.fnvBasis)) + hex64(HTTPCache.fnv1a($0, 0x84222325cbf29ce4))
        }
        var names: [String] = []
        for h in sorted where !names.contains(h.name.lowercased()) { names.append(h.name.lowercased()) }
        if userAgent != nil { names.append("user-agent") }
        if referer != nil { names.append("referer") }
        return CacheVariant(digest: digest, names: names)
    }
}

/// The request options an entry was stored for: a digest of their canonical form, and the
/// header names (no values) for listings.
package struct CacheVariant: Sendable, Hashable {
    /// 32 lowercase hex digits.
    package var digest: String
    /// Lowercased header names (`user-agent`, `referer` for those options).
    package var names: [String]

    /// As written in an entry: `DIGEST name,name`.
    var text: String { digest + " " + names.joined(separator: ",") }

    init(digest: String, names: [String]) { self.digest = digest; self.names = names }

    /// From an entry's line; nil when it is not one this version wrote.
    init?(text: String) {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 32,
              parts[0].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        digest = String(parts[0])
        names = parts[1].split(separator: ",").map(String.init)
    }
}

func hex64(_ v: UInt64) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
}
