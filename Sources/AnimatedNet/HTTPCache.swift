import CFileGuard
import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// What the cache keeps about a URL besides its bytes.
package struct CacheMetadata: Sendable, Equatable {
    package var url: String
    package var etag: String?
    package var lastModified: String?
    package var cacheControl: String?
    package var contentType: String?
    /// Body size and CRC-32 (zlib's), checked on every read (a damaged entry is fetched again).
    package var size: Int
    package var hash: UInt64
    /// When the body was fetched or last revalidated (Unix seconds).
    package var storedAt: Int
    /// The response's Date and Expires headers and its Age (seconds spent in caches before).
    package var date: String? = nil
    package var expires: String? = nil
    package var age: Int? = nil
    /// The request options it was fetched with (nil: none, as every entry of versions before
    /// request options): part of its key, see `RequestOptions.cacheVariant`.
    package var variant: CacheVariant? = nil

    /// Cache-Control directives: max-age in seconds, no-store, no-cache. (s-maxage is for
    /// shared caches, which this private one is not: ignored, RFC 9111 §5.2.2.10.)
    package var maxAge: Int? { (directive("max-age") ?? nil).flatMap { Self.deltaSeconds($0) } }

    /// The largest number of seconds anything here counts (RFC 9111 §1.2.2: a larger
    /// delta-seconds, or a calculation that would overflow, counts as 2^31).
    package static let maxSeconds = 1 << 31

    /// A delta-seconds value (digits only), saturated at `maxSeconds`; nil when not one.
    package static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var v = 0
        for c in text.utf8 { v = min(v * 10 + Int(c - 0x30), maxSeconds) }
        return v
    }

    /// A count (sizes, Unix seconds) in an entry's header: digits only, nil past `limit`.
    static func count(_ text: some StringProtocol, limit: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let v = Int(text), v <= limit else { return nil }
        return v
    }
    package var noStore: Bool { directive("no-store") != nil }
    package var noCache: Bool { directive("no-cache") != nil }
    /// The server forbids showing a stale copy before it has confirmed it (no-cache,
    /// must-revalidate, proxy-revalidate).
    package var mustRevalidate: Bool {
        noCache || directive("must-revalidate") != nil || directive("proxy-revalidate") != nil
    }
    /// It can be revalidated (an ETag or a Last-Modified to send back).
    package var hasValidator: Bool { etag != nil || lastModified != nil }

    /// Seconds it stays fresh (RFC 9111 §4.2.1): max-age, else Expires minus Date (an Expires
    /// that is not a valid date, such as "0", means already expired); nil without either
    /// (every use revalidates: no heuristic freshness, since a stale entry plays at once
    /// anyway and its revalidation runs in the background, so a change shows on the next run).
    package var freshnessLifetime: Int? {
        if let maxAge { return max(0, maxAge) }
        guard let expires else { return nil }
        guard let until = HTTPDate.parse(expires) else { return 0 }
        return min(max(0, until - (date.flatMap(HTTPDate.parse) ?? storedAt)), Self.maxSeconds)
    }

    /// Usable without asking the server: younger than its freshness lifetime, counting the
    /// Age it arrived with.
    package func isFresh(now: Int) -> Bool {
        guard !noCache, let lifetime = freshnessLifetime else { return false }
        // Every term is clamped (storedAt when read, age to maxSeconds): no overflow.
        let elapsed = max(0, now - storedAt)
        return elapsed + min(max(0, age ?? 0), Self.maxSeconds) < lifetime
    }

    private func directive(_ name: String) -> String?? {
        guard let cc = cacheControl else { return nil }
        for part in cc.lowercased().split(separator: ",") {
            let p = part.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpacesAndQuotes() }
            if p.first == name { return .some(p.count > 1 ? p[1] : nil) }
        }
        return nil
    }
}

/// Downloaded images by URL on disk (`$XDG_CACHE_HOME/animplay`, else `~/.cache/animplay`):
/// one file per URL holding the metadata and the original bytes, so that a single `rename`
/// publishes both (a killed download never leaves an entry that reads as complete).
///
/// Processes share it safely: entries are written to a temporary file and renamed into place;
/// lookups, commits, eviction and clearing hold an exclusive `flock` on `lock`; a reader keeps
/// its entry's descriptor, so eviction by another process never pulls bytes from under it.
/// Least recently used entries (file mtime, touched on every hit) go first past `maxBytes`.
///
/// Other users cannot reach in: the folder must be this user's and writable by nobody else
/// (`CacheFolder`: else the cache is not used, see `problem()`), and every file is opened
/// without following links. URLs are keyed and stored with their password masked (`URLText`).
///
/// A memory layer in front of the disk keeps the bytes of recent entries (up to
/// `memoryMaxBytes` in all, per process), so that opening the same URL again in one process
/// reads neither the body nor its hash from disk; the disk entry's header still decides
/// whether the copy in memory is current.
///
/// Sendable: it holds only immutable configuration; shared state is on disk under the lock, or
/// in the process-wide memory layer's `Monitor`.
public final class HTTPCache: Sendable {
    /// The folder holding the entries.
    public let directory: String
    /// Entries beyond this many bytes are evicted, least recently used first.
    public let maxBytes: Int
    /// Version 2: the body's check is a CRC-32 (version 1's FNV-1a entries read as damaged and
    /// are fetched again once).
    private static let magic = "animplay-cache 2"
    /// The longest entry header read back; a longer one (a huge ETag or URL) is not stored.
    package static let maxHeaderBytes = 1 << 20

    /// Bytes of bodies kept in memory per process; entries larger than a quarter of it are not.
    package static let memoryMaxBytes = 64 << 20

    struct MemoryEntry: Sendable {
        var bytes: [UInt8]
        var hash: UInt64
        var used: UInt64
    }
    /// Bodies by URL, shared by every `HTTPCache` of the process.
    static let memory = Monitor<[String: MemoryEntry]>([:])

    static func remember(_ url: String, bytes: [UInt8], hash: UInt64) {
        guard bytes.count <= memoryMaxBytes / 4 else { return }
        memory.withLock { m in
            m[url] = MemoryEntry(bytes: bytes, hash: hash, used: MonotonicClock.nanoseconds())
            var total = m.values.reduce(0) { $0 + $1.bytes.count }
            while total > memoryMaxBytes, let oldest = m.min(by: { $0.value.used < $1.value.used }) {
                total -= oldest.value.bytes.count
                m.removeValue(forKey: oldest.key)
            }
        }
    }

    /// Drops a URL's body from memory (tests).
    static func forget(_ url: String) {
        memory.withLock { _ = $0.removeValue(forKey: URLText.masked(url)) }
    }

    static func recall(_ url: String, hash: UInt64, size: Int) -> [UInt8]? {
        memory.withLock { m -> [UInt8]? in
            guard var e = m[url], e.hash == hash, e.bytes.count == size else { return nil }
            e.used = MonotonicClock.nanoseconds()
            m[url] = e
            return e.bytes
        }
    }

    /// Whether lookups read verified bodies into the memory layer (a process that opens each
    /// URL once, as the command line does, saves the copy and its memory).
    public let keepsBodiesInMemory: Bool

    /// A cache in `directory` (made when first stored to) of at most `maxBytes`; `keepsBodiesInMemory`: a hit is read into memory rather than from the entry file.
    public init(directory: String, maxBytes: Int = 512 << 20, keepsBodiesInMemory: Bool = true) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.keepsBodiesInMemory = keepsBodiesInMemory
    }

    /// `$XDG_CACHE_HOME/animplay`, else `$HOME/.cache/animplay`; nil without either.
    public static func defaultDirectory() -> String? {
        if let x = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), x.hasPrefix("/") { return x + "/animplay" }
        if let h = getenv("HOME").map({ String(cString: $0) }), !h.isEmpty { return h + "/.cache/animplay" }
        return nil
    }

    /// Why the folder cannot be used (then every operation is a miss or does nothing); nil
    /// when it can. Creates it if missing.
    package func problem() -> CacheFolderProblem? {
        if case .failure(let p) = CacheFolder.open(directory) { return p }
        return nil
    }

    private func folder() -> CacheFolder? { try? CacheFolder.open(directory).get() }

    /// The entry's key: the URL with its password masked, and the digest of the request
    /// options it was fetched with, if any (without any, the key is the URL alone, as in
    /// versions before request options, whose entries stay readable).
    static func key(_ url: String, _ variant: CacheVariant?) -> String {
        URLText.masked(url) + (variant.map { "\n" + $0.digest } ?? "")
    }

    /// The entry's file name: FNV-1a 64 of its key.
    func name(for url: String, variant: CacheVariant? = nil) -> String {
        hex(fnv1a(Array(Self.key(url, variant).utf8))) + ".entry"
    }

    func path(for url: String, variant: CacheVariant? = nil) -> String {
        directory + "/entries/" + name(for: url, variant: variant)
    }

    // MARK: reading

    /// A verified entry: its metadata and its body.
    package struct Hit {
        package let metadata: CacheMetadata
        package let source: ByteSource
    }

    /// The entry for `url` fetched with the request options whose `cacheVariant` is `variant`
    /// (nil: none), if present and intact (size and hash match); a damaged one is removed. Marks it as recently used. If another process holds the lock for longer than
    /// `lockBudgetSeconds` (stopped or hung while holding it: nobody holds it that long
    /// otherwise), `busy` is called and the answer is a miss.
    package func lookup(_ url: String, variant: CacheVariant? = nil, busy: (() -> Void)? = nil) -> Hit? {
        guard let f = folder() else { return nil }
        let masked = URLText.masked(url), key = Self.key(url, variant), name = name(for: url, variant: variant)
        let locked: (Int32, CacheMetadata, Int)?? = withLock(f, budget: Self.lockBudgetSeconds) {
            guard let fd = f.openFile(f.entries, name) else { return nil }
            guard let (meta, offset) = readHeader(fd), meta.url == masked, meta.variant?.digest == variant?.digest else {
                close(fd); f.remove(f.entries, name); return nil
            }
            var st = stat()
            guard fstat(fd, &st) == 0, Int(st.st_size) - offset == meta.size else {
                close(fd); f.remove(f.entries, name); return nil
            }
            _ = futimens(fd, nil)     // least recently used = oldest mtime
            return (fd, meta, offset)
        }
        guard let found = locked else { busy?(); return nil }
        guard let (fd, meta, offset) = found else { return nil }
        if let bytes = Self.recall(key, hash: meta.hash, size: meta.size) {
            close(fd)
            return Hit(metadata: meta, source: ByteSource(bytes: bytes, name: masked))
        }
        let source = ByteSource(fd: fd, offset: offset, count: meta.size, name: masked)
        guard (try? hashOf(source)) == meta.hash else {
            _ = withLock(f, budget: Self.lockBudgetSeconds) { () -> Void in
                // Remove it only if it is still the damaged file we read.
                var a = stat(), b = stat()
                if fstat(fd, &a) == 0, fstatat(f.entries, name, &b, AT_SYMLINK_NOFOLLOW) == 0, a.st_ino == b.st_ino {
                    f.remove(f.entries, name)
                }
            }
            return nil
        }
        if keepsBodiesInMemory, meta.size <= Self.memoryMaxBytes / 4, let bytes = try? source.allBytes() {
            Self.remember(key, bytes: bytes, hash: meta.hash)
        }
        return Hit(metadata: meta, source: source)
    }

    // MARK: writing

    /// Stores the finished download in `spool` for `url`; true if it was. A response that
    /// says no-store, or larger than the cache, is not stored and removes an older entry (which
    /// it replaces: that one is no longer current). Nor is one whose header values hold
    /// control characters (a CR in an ETag would split the next request's header) or whose
    /// metadata would be longer than `maxHeaderBytes` (it could not be read back).
    @discardableResult
    package func store(url: String, variant: CacheVariant? = nil, response: HTTPResponse, spool: SpoolBuffer) -> Bool {
        var meta = CacheMetadata(url: URLText.masked(url), etag: response.etag, lastModified: response.lastModified,
                                 cacheControl: response.cacheControl, contentType: response.contentType,
                                 size: spool.progress.count, hash: 0, storedAt: time(nil),
                                 date: response.date, expires: response.expires,
                                 age: response.age.map { min(max(0, $0), CacheMetadata.maxSeconds) }, variant: variant)
        // Vary: * says no later request can be known to match (RFC 9111 §4.1): not worth
        // keeping. Any other Vary is matched by construction: the key holds every request
        // header the user can set (`RequestOptions.cacheVariant`), and the rest are the same on
        // every request animplay makes (Accept-Encoding, the default User-Agent).
        let varyStar = response.vary.map { $0.split(separator: ",").contains { $0.trimmingSpaces() == "*" } } ?? false
        guard !meta.noStore, !varyStar, meta.size <= maxBytes, Self.storable(meta) else {
            removeEntry(url, variant: variant)
            return false
        }
        let size = meta.size
        return write(&meta) { fd, offset in
            var h = Self.crcSeed
            var at = 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            while at < size {
                guard let n = try? spool.read(at: at, into: buffer), n > 0 else { return nil }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<n])
                h = Self.crc(chunk, h)
                guard pwriteAll(fd, chunk, at: offset + at) else { return nil }
                at += n
            }
            return h
        }
    }

    /// Whether every text of `meta` can be written on one header line and read back: no
    /// control characters (tab aside), no DEL, and the whole header within `maxHeaderBytes`.
    static func storable(_ meta: CacheMetadata) -> Bool {
        let texts = [meta.url, meta.etag, meta.lastModified, meta.cacheControl, meta.contentType, meta.date, meta.expires,
                     meta.variant?.text]
        for t in texts {
            guard let t else { continue }
            if t.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) { return false }
        }
        return headerText(meta).utf8.count <= maxHeaderBytes
    }

    /// After a 304: the same bytes, fresh headers and time (rewritten and renamed like a store).
    package func revalidated(_ hit: Hit, response: HTTPResponse) {
        revalidated(hit.metadata, body: hit.source, response: response)
    }

    /// After a 304 to a request made with `metadata`'s validators: its body (read from `source`,
    /// which this call must be the only one reading) with fresh headers and time.
    package func revalidated(_ metadata: CacheMetadata, body source: ByteSource, response: HTTPResponse) {
        var meta = metadata
        meta.storedAt = time(nil)
        if let e = response.etag { meta.etag = e }
        if let l = response.lastModified { meta.lastModified = l }
        if let c = response.cacheControl { meta.cacheControl = c }
        // Freshness restarts from this response: its own Date (or none: then the time of
        // arrival), Expires if it sends one, and Age.
        meta.date = response.date
        if let e = response.expires { meta.expires = e }
        meta.age = response.age.map { min(max(0, $0), CacheMetadata.maxSeconds) }
        if meta.noStore || !Self.storable(meta) { removeEntry(meta.url, variant: meta.variant); return }
        let (size, hash) = (meta.size, meta.hash)
        _ = write(&meta) { fd, offset in
            var at = 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            while at < size {
                guard let n = try? source.read(at: at, into: buffer), n > 0 else { return nil }
                guard pwriteAll(fd, UnsafeRawBufferPointer(rebasing: buffer[..<n]), at: offset + at) else { return nil }
                at += n
            }
            return hash
        }
    }

    /// Writes header + body (from `body`, which returns the body's hash) to a temporary file,
    /// then renames it over the entry and evicts past the cap. The temporary file is
    /// registered for removal if the process is interrupted meanwhile (`animplay_part_register`).
    private func write(_ meta: inout CacheMetadata, body: (Int32, Int) -> UInt64?) -> Bool {
        guard let f = folder() else { return false }
        let part = "\(getpid())-\(UInt(bitPattern: ObjectIdentifier(self).hashValue) & 0xFFFF)-\(MonotonicClock.nanoseconds()).part"
        let slot = animplay_part_register(f.temporary, part)
        defer { animplay_part_unregister(slot) }
        let fd = animplay_openat(f.temporary, part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        var ok = false
        defer { close(fd); if !ok { f.remove(f.temporary, part) } }
        let header = Array(Self.headerText(meta).utf8)
        guard header.withUnsafeBytes({ pwriteAll(fd, $0, at: 0) }), let h = body(fd, header.count) else { return false }
        meta.hash = h
        // The hash goes into its fixed-width field now that it is known.
        let fixed = Array(Self.headerText(meta).utf8)
        guard fixed.count == header.count, fixed.withUnsafeBytes({ pwriteAll(fd, $0, at: 0) }), fsync(fd) == 0 else { return false }
        let entry = name(for: meta.url, variant: meta.variant)
        ok = withLock(f, budget: Self.lockBudgetSeconds) { renameat(f.temporary, part, f.entries, entry) == 0 } ?? false
        if ok { evict(f) }
        return ok
    }

    private static func headerText(_ m: CacheMetadata) -> String {
        var s = Self.magic + "\n" + "url \(m.url)\n"
        if let v = m.etag { s += "etag \(v)\n" }
        if let v = m.lastModified { s += "last-modified \(v)\n" }
        if let v = m.cacheControl { s += "cache-control \(v)\n" }
        if let v = m.contentType { s += "content-type \(v)\n" }
        if let v = m.date { s += "date \(v)\n" }
        if let v = m.expires { s += "expires \(v)\n" }
        if let v = m.age { s += "age \(v)\n" }
        if let v = m.variant { s += "variant \(v.text)\n" }
        return s + "size \(m.size)\nhash \(hex(m.hash))\nstored \(m.storedAt)\n\n"
    }

    /// The metadata and the body's offset; nil when the header is not one this version wrote
    /// (then the entry is a miss): every number is checked against its range, so that no later
    /// arithmetic can overflow on a damaged or edited entry.
    func readHeader(_ fd: Int32) -> (CacheMetadata, Int)? {
        var buf = [UInt8](repeating: 0, count: 16 << 10)
        var n = 0
        var end: Int?
        // Read until the blank line that ends the header, at most maxHeaderBytes + 2.
        while end == nil {
            if n == buf.count {
                guard buf.count < Self.maxHeaderBytes + 2 else { return nil }
                buf += [UInt8](repeating: 0, count: min(buf.count, Self.maxHeaderBytes + 2 - buf.count))
            }
            let got = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + n, $0.count - n, off_t(n)) }
            guard got > 0 else { return nil }
            let from = max(1, n)
            n += got
            for i in from..<n where buf[i] == 0x0A && buf[i - 1] == 0x0A { end = i + 1; break }
        }
        guard let end else { return nil }
        let lines = String(decoding: buf[..<(end - 2)], as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.first == Self.magic else { return nil }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let sp = line.firstIndex(of: " ") else { return nil }
            fields[String(line[..<sp])] = String(line[line.index(after: sp)...])
        }
        // Times up to the year ~36800, sizes up to 2^50: far beyond anything real, far below overflow.
        guard let url = fields["url"], let size = fields["size"].flatMap({ CacheMetadata.count($0, limit: 1 << 50) }),
              let hash = fields["hash"].flatMap({ UInt64($0, radix: 16) }),
              let stored = fields["stored"].flatMap({ CacheMetadata.count($0, limit: 1 << 40) }) else { return nil }
        var age: Int?
        if let a = fields["age"] {
            guard let v = CacheMetadata.deltaSeconds(a) else { return nil }
            age = v
        }
        var variant: CacheVariant?
        if let v = fields["variant"] {
            guard let parsed = CacheVariant(text: v) else { return nil }
            variant = parsed
        }
        return (CacheMetadata(url: url, etag: fields["etag"], lastModified: fields["last-modified"],
                              cacheControl: fields["cache-control"], contentType: fields["content-type"],
                              size: size, hash: hash, storedAt: stored, date: fields["date"],
                              expires: fields["expires"], age: age, variant: variant), end)
    }

    // MARK: maintenance

    /// One entry as `cache info` lists it.
    public struct EntrySummary: Sendable {
        /// The URL, its password masked.
        public var url: String
        /// The entry file's size (header and body).
        public var bytes: Int
        /// Seconds since it was fetched or last revalidated.
        public var age: Int
        /// Still fresh by its headers (played without asking the server).
        public var fresh: Bool
        /// When it was last played or looked up (Unix seconds).
        public var lastUsed: Int
        /// The names of the request headers it was fetched with (no values), if any.
        public var requestHeaders: [String] = []
    }

    /// What `cache info` reports.
    public struct Usage: Sendable {
        /// Every entry, as `cache info` lists them.
        public var entries: [EntrySummary]
        /// Bytes of all entries.
        public var bytes: Int { entries.reduce(0) { $0 + $1.bytes } }
        /// Temporary files of interrupted downloads found, and removed (`removedPartBytes`).
        public var removedParts = 0
        /// Bytes of those removed files.
        public var removedPartBytes = 0
        /// Temporary files of downloads still being stored by live processes.
        public var activeParts = 0
        /// Entry files that did not read back (removed).
        public var removedDamaged = 0
    }

    /// Entries and their total size (entry files, headers included); removes stale temporary
    /// files first. Nil when another process holds the lock longer than `lockBudgetSeconds`.
    public func usage() -> Usage? {
        guard let f = folder() else { return Usage(entries: []) }
        return withLock(f, budget: Self.lockBudgetSeconds) {
            var u = Usage(entries: [])
            (u.removedParts, u.removedPartBytes, u.activeParts) = removeStaleParts(f)
            let now = time(nil)
            for e in f.list(f.entries) where e.name.hasSuffix(".entry") {
                guard e.isFile, let fd = f.openFile(f.entries, e.name) else { f.remove(f.entries, e.name); u.removedDamaged += 1; continue }
                defer { close(fd) }
                guard let (meta, _) = readHeader(fd) else { f.remove(f.entries, e.name); u.removedDamaged += 1; continue }
                u.entries.append(EntrySummary(url: meta.url, bytes: e.size, age: max(0, now - meta.storedAt),
                                              fresh: meta.isFresh(now: now), lastUsed: e.modified / 1_000_000_000,
                                              requestHeaders: meta.variant?.names ?? []))
            }
            u.entries.sort { $0.lastUsed > $1.lastUsed }
            return u
        }
    }

    /// Removes every entry and stale temporary file; the number of entries removed, nil when
    /// another process holds the lock longer than `lockBudgetSeconds`.
    @discardableResult
    public func clear() -> Int? {
        guard let f = folder() else { return 0 }
        return withLock(f, budget: Self.lockBudgetSeconds) {
            var n = 0
            for e in f.list(f.entries) where f.remove(f.entries, e.name) { if e.name.hasSuffix(".entry") { n += 1 } }
            _ = removeStaleParts(f)
            return n
        }
    }

    /// Removes `url`'s entries, whatever request options they were fetched with; whether there
    /// was one (nil: the lock is held by another process).
    @discardableResult
    public func remove(_ url: String) -> Bool? {
        guard let f = folder() else { return false }
        let name = name(for: url), masked = URLText.masked(url)
        return withLock(f, budget: Self.lockBudgetSeconds) {
            var any = f.remove(f.entries, name)
            for e in f.list(f.entries) where e.isFile && e.name.hasSuffix(".entry") {
                guard let fd = f.openFile(f.entries, e.name) else { continue }
                let meta = readHeader(fd)?.0
                close(fd)
                if let meta, meta.url == masked, meta.variant != nil, f.remove(f.entries, e.name) { any = true }
            }
            return any
        }
    }

    /// Removes the one entry of `url` fetched with `variant`.
    @discardableResult
    func removeEntry(_ url: String, variant: CacheVariant?) -> Bool? {
        guard let f = folder() else { return false }
        let name = name(for: url, variant: variant)
        return withLock(f, budget: Self.lockBudgetSeconds) { f.remove(f.entries, name) }
    }

    /// Least recently used entries go until the total is within `maxBytes`; temporary files
    /// of processes that are gone (killed during a store) go too.
    private func evict(_ f: CacheFolder) {
        _ = withLock(f, budget: Self.lockBudgetSeconds) { () -> Void in
            var list = f.list(f.entries).filter { $0.name.hasSuffix(".entry") }
            var total = list.reduce(0) { $0 + $1.size }
            list.sort { $0.modified < $1.modified }
            var i = 0
            while total > maxBytes && i < list.count {
                f.remove(f.entries, list[i].name); total -= list[i].size; i += 1
            }
            _ = removeStaleParts(f)
        }
    }

    /// Temporary files whose process is gone (the pid their name starts with no longer runs),
    /// or older than an hour, or not plain files: removed. Returns (removed, their bytes, left).
    private func removeStaleParts(_ f: CacheFolder) -> (Int, Int, Int) {
        var removed = 0, bytes = 0, left = 0
        let now = time(nil)
        for t in f.list(f.temporary) {
            let pid = t.name.split(separator: "-").first.flatMap { Int32($0) }
            let alive = pid.map { $0 > 0 && (kill($0, 0) == 0 || errno == EPERM) } ?? false
            let old = now - t.modified / 1_000_000_000 > 3600
            if !t.isFile || !alive || old {
                if f.remove(f.temporary, t.name) { removed += 1; bytes += t.size }
            } else {
                left += 1
            }
        }
        return (removed, bytes, left)
    }

    /// How long a lookup, a commit or a cache command waits for the lock before going on
    /// without the cache (or, for a command, saying who holds it).
    package static let lockBudgetSeconds = 2.0

    /// The process holding the cache's lock now (Linux: from /proc/locks), if known.
    package func lockHolder() -> Int32? {
        guard let f = folder(), let fd = f.openLock() else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let file = open("/proc/locks", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while text.count < 4 << 20 {
            let n = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            text += chunk[..<n]
        }
        // "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF" (waiters have "->" after the number).
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            let w = line.split(separator: " ")
            guard w.count >= 6, w[1] == "FLOCK", let pid = Int32(w[4]) else { continue }
            let dev = w[5].split(separator: ":")
            if dev.count == 3, UInt64(dev[2]) == UInt64(st.st_ino) { return pid }
        }
        return nil
    }

    /// `body` holding the cache's exclusive lock (between processes too), giving up after
    /// `budget` seconds (nil). flock has no timed wait: it is tried every 2 ms (the lock is
    /// normally held for well under a millisecond). Without a lock file (it cannot be
    /// created) the cache is not touched.
    private func withLock<R>(_ f: CacheFolder, budget: Double, _ body: () -> R) -> R? {
        guard let fd = f.openLock() else { return nil }
        defer { close(fd) }                     // closing releases the lock
        let deadline = MonotonicClock.nanoseconds() + UInt64(budget * 1e9)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return nil }
            if MonotonicClock.nanoseconds() >= deadline { return nil }
            usleep(2000)
        }
        return body()
    }

    // MARK: hashing

    /// File names: FNV-1a 64 of the URL (small input, spread over 64 bits).
    static let fnvBasis: UInt64 = 0xcbf29ce484222325

    static func fnv1a(_ bytes: UnsafeRawBufferPointer, _ seed: UInt64) -> UInt64 {
        var h = seed
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }

    private func fnv1a(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { Self.fnv1a($0, Self.fnvBasis) } }

    /// Bodies: zlib's CRC-32, checked before every play from disk. It is what detects damage
    /// (any burst up to 32 bits, any odd number of flipped bits), and zlib computes it several
    /// times faster than a byte-at-a-time FNV-1a: 0.3 ms instead of 3.3 ms for a 1.8 MB GIF.
    static let crcSeed = UInt64(crc32_z(0, nil, 0))

    static func crc(_ bytes: UnsafeRawBufferPointer, _ seed: UInt64) -> UInt64 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        return UInt64(crc32_z(uLong(seed), base.assumingMemoryBound(to: Bytef.self), bytes.count))
    }

    private func hashOf(_ source: ByteSource) throws(AnimatedError) -> UInt64 {
        var h = Self.crcSeed
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var at = 0
        while at < source.count {
            let n = try source.read(at: at, into: buffer)
            guard n > 0 else { break }
            h = Self.crc(UnsafeRawBufferPointer(rebasing: buffer[..<n]), h)
            at += n
        }
        return h
    }
}

private func hex(_ v: UInt64) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
}

extension String {
    func trimmingSpacesAndQuotes() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\"" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\"" { s.removeLast() }
        return String(s)
    }
}
