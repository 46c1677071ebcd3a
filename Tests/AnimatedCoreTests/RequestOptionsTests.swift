import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AnimatedCore
@testable import AnimatedNet

/// Request options (headers, user agent, referer): validation, the cache key they make, and
/// cancelling a download against a loopback server that reports what it received and when the
/// connection closed.
@Suite(.serialized) struct RequestOptionsTests {
    @Test func namesMustBeTokensAndValuesSingleLines() {
        #expect(RequestOptions(headers: [HTTPHeader(name: "X-Api-Key", value: "a b\tc")]).problem() == nil)
        let bad: [(HTTPHeader, String)] = [
            (HTTPHeader(name: "X Y", value: "v"), "'X Y' is not a token"),
            (HTTPHeader(name: "", value: "v"), "'' is not a token"),
            (HTTPHeader(name: "X-\u{1B}[31m", value: "v"), "'X-\\x1B[31m' is not a token"),
            (HTTPHeader(name: "X-Split", value: "a\r\nInjected: 1"), "'X-Split': the value holds a control"),
            (HTTPHeader(name: "X-Nul", value: "a\u{0}b"), "'X-Nul': the value holds a control"),
            (HTTPHeader(name: "if-none-match", value: "\"x\""), "'if-none-match' is managed"),
            (HTTPHeader(name: "Range", value: "bytes=0-1"), "'Range' is managed"),
        ]
        for (h, want) in bad {
            let p = RequestOptions(headers: [h]).problem()
            #expect(p?.contains(want) == true, "\(p ?? "nil")")
            #expect(p?.contains("Injected") != true)
        }
        #expect(RequestOptions(userAgent: "ua\nX: 1").problem()?.contains("user agent") == true)
        #expect(RequestOptions(referer: "https://x/\u{7F}").problem()?.contains("referer") == true)
        #expect(HTTPHeader(parsing: "Name:  value  ") == HTTPHeader(name: "Name", value: "value"))
        #expect(HTTPHeader(parsing: "no colon") == nil)
    }

    @Test func theCacheVariantSeparatesHeaderSetsAndIgnoresWhatDoesNotMatter() {
        #expect(RequestOptions().cacheVariant == nil)
        let a = RequestOptions(headers: [HTTPHeader(name: "X-Token", value: "a"), HTTPHeader(name: "X-Other", value: "1")])
        let sameA = RequestOptions(headers: [HTTPHeader(name: "x-other", value: "1"), HTTPHeader(name: "x-token", value: "a")])
        let b = RequestOptions(headers: [HTTPHeader(name: "X-Token", value: "b"), HTTPHeader(name: "X-Other", value: "1")])
        #expect(a.cacheVariant?.digest == sameA.cacheVariant?.digest)
        #expect(a.cacheVariant?.digest != b.cacheVariant?.digest)
        #expect(a.cacheVariant?.names == ["x-other", "x-token"])
        // The order of repeated names is kept (a list header's meaning depends on it).
        let ab = RequestOptions(headers: [HTTPHeader(name: "X-L", value: "1"), HTTPHeader(name: "X-L", value: "2")])
        let ba = RequestOptions(headers: [HTTPHeader(name: "X-L", value: "2"), HTTPHeader(name: "X-L", value: "1")])
        #expect(ab.cacheVariant?.digest != ba.cacheVariant?.digest)
        // A user agent or referer is not a header of the same value.
        #expect(RequestOptions(userAgent: "x").cacheVariant?.digest != RequestOptions(referer: "x").cacheVariant?.digest)
        #expect(RequestOptions(userAgent: "x").cacheVariant?.names == ["user-agent"])
        #expect(RequestOptions(headers: [HTTPHeader(name: "Cookie", value: "s=1")]).carriesCredentials)
        #expect(RequestOptions(headers: [HTTPHeader(name: "AUTHORIZATION", value: "Bearer t")]).carriesCredentials)
        #expect(!a.carriesCredentials)
    }

    func tempDir() -> String {
        var t = Array("/tmp/animplay-request-test-XXXXXX".utf8CString)
        return t.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    func spool(_ bytes: [UInt8]) throws -> SpoolBuffer {
        let s = SpoolBuffer(name: "t")
        try s.append(bytes)
        s.finish()
        return s
    }

    @Test func entriesAreKeyedOnTheVariantAndOldEntriesStillRead() throws {
        let dir = tempDir()
        let cache = HTTPCache(directory: dir, keepsBodiesInMemory: false)
        let url = "http://127.0.0.1:1/v-\(getpid()).gif"
        let r = HTTPResponse(status: 200, reason: "OK", url: url, etag: "\"1\"", lastModified: nil,
                             cacheControl: "max-age=60", contentType: "image/gif", contentLength: nil, contentEncoding: nil)
        let token = RequestOptions(headers: [HTTPHeader(name: "X-Token", value: "secret-value")]).cacheVariant
        let other = RequestOptions(headers: [HTTPHeader(name: "X-Token", value: "other")]).cacheVariant
        #expect(cache.store(url: url, variant: token, response: r, spool: try spool([1, 2, 3])))
        #expect(cache.lookup(url) == nil)
        #expect(cache.lookup(url, variant: other) == nil)
        #expect(try cache.lookup(url, variant: token)?.source.allBytes() == [1, 2, 3])
        #expect(cache.lookup(url, variant: token)?.metadata.variant == token)
        // The entry file holds the digest and the names, never the value.
        let text = try ByteSource(path: cache.path(for: url, variant: token)).allBytes()
        #expect(!String(decoding: text, as: UTF8.self).contains("secret-value"))
        #expect(String(decoding: text, as: UTF8.self).contains("variant \(token!.digest) x-token\n"))
        // Without options the key is the URL alone: the file name and header earlier versions
        // wrote, so their entries are still found.
        #expect(cache.store(url: url, response: r, spool: try spool([4, 5])))
        #expect(cache.name(for: url) == cache.name(for: url, variant: nil))
        let plain = String(decoding: try ByteSource(path: cache.path(for: url)).allBytes(), as: UTF8.self)
        #expect(plain.hasPrefix("animplay-cache 2\nurl \(url)\n") && !plain.contains("variant"))
        #expect(try cache.lookup(url)?.source.allBytes() == [4, 5])
        #expect(cache.usage()?.entries.map(\.requestHeaders).sorted { $0.count < $1.count } == [[], ["x-token"]])
        // `remove` takes the URL's entries of every variant.
        #expect(cache.remove(url) == true)
        #expect(cache.usage()?.entries.isEmpty == true)
    }

    @Test func headersUserAgentAndRefererReachTheServer() throws {
        let server = try LoopbackServer(answer: LoopbackServer.gif(bytes: 200), thenHold: false)
        var o = DownloadOptions()
        o.request = RequestOptions(headers: [HTTPHeader(name: "X-Token", value: "abc"), HTTPHeader(name: "X-Empty", value: "")],
                                   userAgent: "tester/1", referer: "https://example.com/p")
        let download = try HTTPDownload(url: server.url, options: o)
        guard case .body = download.waitForStart() else { Issue.record("no body"); return }
        #expect(download.spool.waitUntilFinished().failure == nil)
        let request = server.request()
        #expect(request.contains("\r\nX-Token: abc\r\n") && request.contains("\r\nX-Empty:"))
        #expect(request.contains("\r\nUser-Agent: tester/1\r\n") && request.contains("\r\nReferer: https://example.com/p\r\n"))
    }

    @Test func cancellingADownloadClosesTheConnectionAndEndsTheReaders() throws {
        // Headers announce 1 MB, 300 bytes come, then nothing: without a cancel the transfer
        // would wait for the stall timeout (30 s).
        let server = try LoopbackServer(answer: LoopbackServer.gif(bytes: 1 << 20, send: 300), thenHold: true)
        let download = try HTTPDownload(url: server.url, options: DownloadOptions())
        guard case .body = download.waitForStart() else { Issue.record("no body"); return }
        #expect(download.spool.waitForMore(than: 299, deadline: MonotonicClock.nanoseconds() + 20_000_000_000) != nil)
        download.cancel()
        let end = download.spool.waitUntilFinished()
        #expect(end.cancelled && end.fatal && end.failure == SpoolBuffer.cancelledMessage)
        #expect(download.waitUntilEnded(seconds: 10))
        #expect(server.waitForClose(seconds: 10))
        // A decoder asked to wait for more bytes does not hang: the source is done.
        let source = ByteSource(spool: download.spool)
        #expect(!source.isGrowing)
    }

    @Test func aLoadCancellationStopsURLLoaderWhileItWaitsForTheServer() throws {
        let server = try LoopbackServer(answer: nil, thenHold: true)      // never answers
        // snippet: cancel a load
        let cancellation = LoadCancellation()
        let loading = URLLoadOptions(progressive: true, cancellation: cancellation)
        let outcome = Monitor<String?>(nil)
        let url = server.url
        try DetachedThread.start("test loader") {
            let result: String
            do throws(AnimatedError) {
                _ = try URLLoader.open(url, loading: loading); result = "opened"
            } catch { result = error.message }
            outcome.withLock { $0 = result }
            outcome.broadcast()
        }
        #expect(server.waitForRequest(seconds: 20))
        cancellation.cancel()       // from any thread: the loader's download is aborted
        let message = outcome.wait(deadline: MonotonicClock.nanoseconds() + 10_000_000_000) { m -> MonitorStep<String> in
            m.map { .done($0) } ?? .sleep(notify: false)
        }
        #expect(message == SpoolBuffer.cancelledMessage)
        #expect(server.waitForClose(seconds: 10))
    }

    /// A player waiting at the last frame downloaded (clock held for the next one) does not
    /// wait forever once its owner cancels the load: the source ends, the animation is what
    /// arrived, and the spool says it was cancelled.
    @Test func aPlayerWaitingForMoreFramesEndsWhenItsLoadIsCancelled() throws {
        let w = GrowingSourceTests.gif()
        let spool = SpoolBuffer(name: "cancelled")
        try spool.append(Array(w.bytes[0..<w.imageEnds[1]]))
        let source = ByteSource(spool: spool)
        let decoder = try GIFDecoder(source: source, options: DecodeOptions())
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(decoder, PlayerOptions(maxFPS: 0), time: time)
        spool.observe(p.sourceGrowthHandler)
        #expect(settle(p).frame != nil)
        time.set(t0 + ms(100))
        #expect(settle(p).frame != nil && p.status.frameIndex == 1)
        time.set(t0 + ms(200))
        #expect(settle(p).frame == nil && p.info.provisional)         // held: frame 2 has not arrived
        ByteSource(spool: spool).cancelLoad()
        p.waitUntilBuffered()
        time.set(t0 + ms(300))
        _ = settle(p)
        #expect(!p.info.provisional && p.info.frameCount == 2)
        #expect(spool.progress.cancelled && spool.progress.failure == SpoolBuffer.cancelledMessage)
    }

    @Test func aCancelledSpoolEndsItsReaderAtOnce() throws {
        let spool = SpoolBuffer(name: "stream")
        try spool.append(Array("GIF89a".utf8))
        let source = ByteSource(spool: spool)
        source.cancelLoad()
        #expect(spool.progress.cancelled)
        // Later bytes are dropped; the end is final.
        try spool.append([1, 2, 3])
        spool.finish()
        #expect(spool.progress.count == 6 && spool.progress.failure == SpoolBuffer.cancelledMessage)
        #expect(throws: AnimatedError.self) { try AnimationLoader.open(spool: spool, options: DecodeOptions(), progressive: true) }
    }
}

/// One connection on 127.0.0.1: records the request, sends `answer` (or nothing), then holds
/// the connection open (`thenHold`) or closes it, and notes when the client closes it.
final class LoopbackServer: Sendable {
    let url: String
    private let state = Monitor<(request: String, requested: Bool, closed: Bool)>(("", false, false))

    static func gif(bytes total: Int, send: Int? = nil) -> [UInt8] {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: image/gif\r\nContent-Length: \(total)\r\nCache-Control: no-store\r\n\r\n"
        let body = Array("GIF89a".utf8) + [UInt8](repeating: 0, count: (send ?? total) - 6)
        return Array(head.utf8) + body
    }

    init(answer: [UInt8]?, thenHold: Bool) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { close(fd); throw AnimatedError.network("loopback server: \(String(cString: strerror(errno)))") }
        url = "http://127.0.0.1:\(UInt16(bigEndian: addr.sin_port))/x.gif"
        let state = state
        try DetachedThread.start("loopback server") {
            let c = accept(fd, nil, nil)
            close(fd)
            guard c >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 65536)
            var request: [UInt8] = []
            while !request.ends(with: Array("\r\n\r\n".utf8)) {
                let n = read(c, &buffer, buffer.count)
                if n <= 0 { break }
                request += buffer[..<n]
            }
            let text = String(decoding: request, as: UTF8.self)
            state.withLock { $0.request = text; $0.requested = true }
            state.broadcast()
            if let answer { _ = answer.withUnsafeBytes { write(c, $0.baseAddress, $0.count) } }
            if thenHold {
                // Until the client closes: read returns 0 (or fails on a reset).
                while read(c, &buffer, buffer.count) > 0 {}
            }
            close(c)
            state.withLock { $0.closed = true }
            state.broadcast()
        }
    }

    func request() -> String { state.withLock { $0.request } }

    func waitForRequest(seconds: Double) -> Bool {
        state.wait(deadline: MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)) { s -> MonitorStep<Bool> in
            s.requested ? .done(true) : .sleep(notify: false)
        } ?? false
    }

    func waitForClose(seconds: Double) -> Bool {
        state.wait(deadline: MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)) { s -> MonitorStep<Bool> in
            s.closed ? .done(true) : .sleep(notify: false)
        } ?? false
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
