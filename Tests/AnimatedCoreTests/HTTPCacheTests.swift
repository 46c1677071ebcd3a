import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// The download cache on a temporary directory: store from a spool, verified reads, damage,
/// revalidation, eviction by least recent use, the memory layer.
@Suite(.serialized) struct HTTPCacheTests {
    func tempDir() -> String {
        var t = Array("/tmp/animplay-cache-test-XXXXXX".utf8CString)
        return t.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    func response(_ url: String, etag: String? = "\"v1\"", cc: String? = nil) -> HTTPResponse {
        HTTPResponse(status: 200, reason: "OK", url: url, etag: etag, lastModified: "Mon, 23 Nov 2026 10:00:00 GMT",
                     cacheControl: cc, contentType: "image/gif", contentLength: nil, contentEncoding: nil)
    }

    func spool(_ bytes: [UInt8]) throws -> SpoolBuffer {
        let s = SpoolBuffer(name: "t")
        try s.append(bytes)
        s.finish()
        return s
    }

    @Test func storesAndReadsBackWithMetadata() throws {
        let cache = HTTPCache(directory: tempDir())
        let body = SpoolBufferTests.pattern(100_000, seed: 1)
        let url = "http://127.0.0.1:1/a-\(getpid()).gif"
        cache.store(url: url, response: response(url, cc: "max-age=60"), spool: try spool(body))
        let hit = try #require(cache.lookup(url))
        #expect(try hit.source.allBytes() == body)
        #expect(hit.metadata.etag == "\"v1\"" && hit.metadata.maxAge == 60 && hit.metadata.size == body.count)
        #expect(hit.metadata.isFresh(now: hit.metadata.storedAt + 59) && !hit.metadata.isFresh(now: hit.metadata.storedAt + 60))
        #expect(cache.lookup(url + "?other") == nil)
        #expect(cache.usage()?.entries.count == 1)
    }

    /// An entry file may carry any time (a restored backup, `touch -d 2300-01-01`): its time in
    /// nanoseconds overflowed, and `usage` (`animplay cache info`, every store's eviction)
    /// trapped. Far times are clamped to what an Int holds, and the entry is still listed.
    @Test func entriesWithTimesFarFromNowAreListed() throws {
        let dir = tempDir()
        let cache = HTTPCache(directory: dir)
        let url = "http://127.0.0.1:1/t-\(getpid()).gif"
        #expect(cache.store(url: url, response: response(url), spool: try spool([1, 2, 3])))
        let entries = dir + "/entries"
        let folder = try #require(opendir(entries))
        var names: [String] = []
        while let e = readdir(folder) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if name.hasSuffix(".entry") { names.append(name) }
        }
        closedir(folder)
        let name = try #require(names.first)
        // The year 2300, then the year 1000, in seconds since the epoch.
        for seconds in [10_413_792_000, -30_610_224_000] {
            var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
            try #require(utimensat(AT_FDCWD, entries + "/" + name, &times, 0) == 0)
            let listed = try #require(cache.usage()).entries
            #expect(listed.map(\.url) == [url])
            #expect(listed.first.map { ($0.lastUsed > 0) == (seconds > 0) } == true)
        }
    }

    @Test func noStoreIsNotKeptAndNoCacheIsNeverFresh() throws {
        let cache = HTTPCache(directory: tempDir())
        let url = "http://127.0.0.1:1/n-\(getpid()).gif"
        cache.store(url: url, response: response(url, cc: "no-store"), spool: try spool([1, 2, 3]))
        #expect(cache.lookup(url) == nil)
        cache.store(url: url, response: response(url, cc: "no-cache, max-age=100"), spool: try spool([1, 2, 3]))
        let hit = try #require(cache.lookup(url))
        #expect(!hit.metadata.isFresh(now: hit.metadata.storedAt))
    }

    @Test func damagedBodyIsDetectedAndRemoved() throws {
        let dir = tempDir()
        let cache = HTTPCache(directory: dir)
        let body = SpoolBufferTests.pattern(50_000, seed: 2)
        let url = "http://127.0.0.1:1/d-\(getpid()).gif"
        cache.store(url: url, response: response(url), spool: try spool(body))
        HTTPCache.forget(url)           // the read must go to disk
        let path = cache.path(for: url)
        let fd = open(path, O_RDWR)
        var st = stat(); fstat(fd, &st)
        var b: UInt8 = 0
        pread(fd, &b, 1, st.st_size - 5); b ^= 0xFF; pwrite(fd, &b, 1, st.st_size - 5)
        close(fd)
        #expect(cache.lookup(url) == nil)
        #expect(access(path, F_OK) != 0)
    }

    @Test func revalidationKeepsTheBytesWithNewHeaders() throws {
        let cache = HTTPCache(directory: tempDir())
        let url = "http://127.0.0.1:1/r-\(getpid()).gif"
        cache.store(url: url, response: response(url), spool: try spool([9, 8, 7, 6]))
        let hit = try #require(cache.lookup(url))
        var notModified = response(url, etag: "\"v2\"", cc: "max-age=30")
        notModified.status = 304
        cache.revalidated(hit, response: notModified)
        let again = try #require(cache.lookup(url))
        #expect(try again.source.allBytes() == [9, 8, 7, 6])
        #expect(again.metadata.etag == "\"v2\"" && again.metadata.maxAge == 30)
    }

    @Test func noStoreResponseRemovesTheOlderEntry() throws {
        let cache = HTTPCache(directory: tempDir())
        let url = "http://127.0.0.1:1/ns-\(getpid()).gif"
        #expect(cache.store(url: url, response: response(url), spool: try spool([1, 2, 3])))
        #expect(cache.lookup(url) != nil)
        // The server's newer answer says no-store: the old copy is no longer current either.
        #expect(!cache.store(url: url, response: response(url, etag: "\"v2\"", cc: "no-store"), spool: try spool([4, 5])))
        #expect(cache.lookup(url) == nil)
    }

    @Test func whatMayBeShownStaleWhileRevalidating() {
        func meta(_ cc: String?, etag: String? = "\"e\"", lastModified: String? = nil) -> CacheMetadata {
            CacheMetadata(url: "u", etag: etag, lastModified: lastModified, cacheControl: cc, contentType: nil,
                          size: 0, hash: 0, storedAt: 0)
        }
        #expect(!meta(nil).mustRevalidate && !meta("max-age=60").mustRevalidate)
        #expect(meta("no-cache").mustRevalidate && meta("max-age=60, must-revalidate").mustRevalidate)
        #expect(meta("Proxy-Revalidate").mustRevalidate)
        #expect(meta(nil).hasValidator && meta(nil, etag: nil, lastModified: "Mon, 23 Nov 2026 10:00:00 GMT").hasValidator)
        #expect(!meta(nil, etag: nil).hasValidator)
    }

    @Test func httpDatesInTheirThreeForms() {
        // RFC 9110 §5.6.7's example, in each form.
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784111777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784111777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784111777)
        for bad in ["0", "-1", "", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "tomorrow"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func freshnessFromMaxAgeExpiresAndAge() {
        func meta(_ cc: String?, date: String? = nil, expires: String? = nil, age: Int? = nil) -> CacheMetadata {
            CacheMetadata(url: "u", etag: "\"e\"", lastModified: nil, cacheControl: cc, contentType: nil,
                          size: 0, hash: 0, storedAt: 1_000_000, date: date, expires: expires, age: age)
        }
        let t = 1_000_000
        // Expires one hour after Date: fresh for an hour from arrival, whatever the clocks say.
        let hour = meta(nil, date: "Sun, 06 Nov 1994 08:49:37 GMT", expires: "Sun, 06 Nov 1994 09:49:37 GMT")
        #expect(hour.freshnessLifetime == 3600 && hour.isFresh(now: t + 3599) && !hour.isFresh(now: t + 3600))
        #expect(meta(nil, expires: "0").freshnessLifetime == 0 && !meta(nil, expires: "0").isFresh(now: t))
        #expect(meta("max-age=10", date: "Sun, 06 Nov 1994 08:49:37 GMT", expires: "Sun, 06 Nov 1994 09:49:37 GMT").freshnessLifetime == 10)
        #expect(meta("s-maxage=600").freshnessLifetime == nil)
        #expect(meta(nil).freshnessLifetime == nil && !meta(nil).isFresh(now: t))
        // Age already spent in caches on the way counts.
        #expect(meta("max-age=60", age: 50).isFresh(now: t + 9) && !meta("max-age=60", age: 50).isFresh(now: t + 10))
        #expect(!meta("max-age=60, no-cache").isFresh(now: t))
    }

    @Test func freshnessFieldsSurviveTheEntryAndAVaryStarIsNotStored() throws {
        let cache = HTTPCache(directory: tempDir())
        let url = "http://127.0.0.1:1/x-\(getpid()).gif"
        var r = response(url)
        r.date = "Sun, 06 Nov 1994 08:49:37 GMT"; r.expires = "Sun, 06 Nov 1994 09:49:37 GMT"; r.age = 5
        cache.store(url: url, response: r, spool: try spool([1, 2]))
        let hit = try #require(cache.lookup(url))
        #expect(hit.metadata.date == r.date && hit.metadata.expires == r.expires && hit.metadata.age == 5)
        r.vary = "Accept-Encoding, *"
        #expect(!cache.store(url: url, response: r, spool: try spool([3])))
        #expect(cache.lookup(url) == nil)
    }

    @Test func heldRevalidationAsksOnlyOnceLetGoAndLeavesTheEntryWhenUnreachable() throws {
        let cache = HTTPCache(directory: tempDir())
        let url = "http://127.0.0.1:1/held-\(getpid()).gif"      // nothing listens on port 1
        cache.store(url: url, response: response(url), spool: try spool([1, 2, 3]))
        let hit = try #require(cache.lookup(url))
        let revalidation = try BackgroundRevalidation(url: url, metadata: hit.metadata, body: try hit.source.duplicate(),
                                                      cache: cache, options: DownloadOptions(), held: true)
        #expect(!revalidation.proceeded && revalidation.current == .pending)
        revalidation.proceed()
        let end = revalidation.wait(seconds: 60)
        guard case .unreachable = end else { Issue.record("expected unreachable, got \(end)"); return }
        #expect(try cache.lookup(url)?.source.allBytes() == [1, 2, 3])
    }

    @Test func aDuplicateReadsTheSameBodyIndependently() throws {
        let cache = HTTPCache(directory: tempDir())
        let body = SpoolBufferTests.pattern(70_000, seed: 4)
        let url = "http://127.0.0.1:1/dup-\(getpid()).gif"
        cache.store(url: url, response: response(url), spool: try spool(body))
        HTTPCache.forget(url)           // from disk: a file source
        let hit = try #require(cache.lookup(url))
        let copy = try hit.source.duplicate()
        #expect(try copy.allBytes() == body)
        #expect(try hit.source.bytes(at: 60_000, length: 10) == Array(body[60_000..<60_010]))
        let inMemory = ByteSource(bytes: body)
        #expect(try inMemory.duplicate().allBytes() == body)
    }

    @Test func leastRecentlyUsedGoesFirstPastTheCap() throws {
        let cache = HTTPCache(directory: tempDir(), maxBytes: 250_000)
        let urls = (0..<3).map { "http://127.0.0.1:1/lru-\(getpid())-\($0).gif" }
        cache.store(url: urls[0], response: response(urls[0]), spool: try spool(SpoolBufferTests.pattern(100_000)))
        cache.store(url: urls[1], response: response(urls[1]), spool: try spool(SpoolBufferTests.pattern(100_000)))
        // Entry times are file mtimes: make "used" strictly later for url 0.
        var ts = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, cache.path(for: urls[1]), &ts, 0) == 0)
        #expect(cache.lookup(urls[0]) != nil)
        cache.store(url: urls[2], response: response(urls[2]), spool: try spool(SpoolBufferTests.pattern(100_000)))
        #expect(cache.lookup(urls[1]) == nil)
        #expect(cache.lookup(urls[0]) != nil && cache.lookup(urls[2]) != nil)
        cache.clear()
        #expect(cache.usage()?.entries.count == 0)
    }

    @Test func memoryLayerServesARepeatedLookup() throws {
        let cache = HTTPCache(directory: tempDir())
        let url = "http://127.0.0.1:1/m-\(getpid()).gif"
        let body = SpoolBufferTests.pattern(5_000, seed: 4)
        cache.store(url: url, response: response(url), spool: try spool(body))
        _ = try #require(cache.lookup(url))
        #expect(HTTPCache.recall(url, hash: cache.lookup(url)!.metadata.hash, size: body.count) == body)
        // The disk copy is gone: the entry is gone too (the header decides), memory or not.
        unlink(cache.path(for: url))
        #expect(cache.lookup(url) == nil)
    }
}
