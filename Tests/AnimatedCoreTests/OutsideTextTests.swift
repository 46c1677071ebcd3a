import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Text and numbers from outside (servers, URLs, terminals): escaped, masked, clamped, bounded.
@Suite struct OutsideTextTests {
    @Test func controlsAreEscapedAndTextIsKept() {
        #expect(TerminalText.escaped("plain é ✓") == "plain é ✓")
        #expect(TerminalText.escaped("a\u{1B}]0;t\u{07}b") == "a\\x1B]0;t\\x07b")
        #expect(TerminalText.escaped("\u{9B}2J\u{7F}\u{85}") == "\\u{9B}2J\\x7F\\u{85}")
        #expect(TerminalText.escaped("x\ny\r") == "x\\x0Ay\\x0D")
        #expect(TerminalText.escaped("x\ny\r", keepNewlines: true) == "x\ny\\x0D")
        #expect(TerminalText.escaped("\u{00}\t") == "\\x00\\x09")
    }

    @Test func passwordsAreMasked() {
        #expect(URLText.masked("http://u:secret@h/x.gif") == "http://u:***@h/x.gif")
        #expect(URLText.masked("https://u:p:q@h:8080/a@b?c=d:e@f") == "https://u:***@h:8080/a@b?c=d:e@f")
        #expect(URLText.masked("http://u@h/x") == "http://u@h/x")
        #expect(URLText.masked("http://h/x?u:p@y") == "http://h/x?u:p@y")
        #expect(URLText.masked("http://u:***@h/") == "http://u:***@h/")
        #expect(URLText.masked("not a url") == "not a url")
    }

    /// What libcurl is given: as a browser sends it (spaces and non-ASCII after the host
    /// percent-encoded), the scheme, user information and host as they are.
    @Test func urlsAreRequestedAsBrowsersSendThem() {
        #expect(URLText.requestForm("https://h/my file.gif") == "https://h/my%20file.gif")
        #expect(URLText.requestForm("http://h/caf\u{e9}.gif?q=a b#x y") == "http://h/caf%C3%A9.gif?q=a%20b#x%20y")
        #expect(URLText.requestForm("http://h/a%20b.gif") == "http://h/a%20b.gif")   // already encoded
        #expect(URLText.requestForm("http://h/<a>\"b\"`\u{7}") == "http://h/%3Ca%3E%22b%22%60%07")
        #expect(URLText.requestForm("http://u:p w@b\u{fc}cher.example/x") == "http://u:p w@b\u{fc}cher.example/x")
        #expect(URLText.requestForm("http://h?x y") == "http://h?x%20y")
        #expect(URLText.requestForm("https://h/plain.gif") == "https://h/plain.gif")
        #expect(URLText.requestForm("not a url") == "not a url")
    }

    @Test func deltaSecondsSaturateAndFreshnessCannotOverflow() {
        #expect(CacheMetadata.deltaSeconds("60") == 60)
        #expect(CacheMetadata.deltaSeconds("9223372036854775807") == CacheMetadata.maxSeconds)
        #expect(CacheMetadata.deltaSeconds("99999999999999999999999") == CacheMetadata.maxSeconds)
        #expect(CacheMetadata.deltaSeconds("-1") == nil && CacheMetadata.deltaSeconds("") == nil && CacheMetadata.deltaSeconds("1e3") == nil)
        var m = CacheMetadata(url: "u", size: 0, hash: 0, storedAt: 1_000, age: Int.max)
        m.cacheControl = "max-age=9223372036854775807"
        #expect(m.maxAge == CacheMetadata.maxSeconds)
        #expect(!m.isFresh(now: Int.max / 2))
        #expect(!m.isFresh(now: 0))
    }

    @Test func controlCharactersAndHugeMetadataAreNotStorable() {
        let ok = CacheMetadata(url: "http://h/x", etag: "\"a\tb\"", size: 1, hash: 0, storedAt: 1)
        #expect(HTTPCache.storable(ok))
        for bad in ["\"a\rb\"", "\"a\nb\"", "\"a\u{1B}b\"", "\"a\u{7F}\""] {
            var m = ok; m.etag = bad
            #expect(!HTTPCache.storable(m))
        }
        var long = ok
        long.etag = String(repeating: "e", count: HTTPCache.maxHeaderBytes)
        #expect(!HTTPCache.storable(long))
    }

    @Test func longMetadataIsReadBackWhole() throws {
        var t = Array("/tmp/animplay-outside-XXXXXX".utf8CString)
        let dir = t.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        let cache = HTTPCache(directory: dir)
        let url = "http://127.0.0.1:1/" + String(repeating: "p", count: 17_000)
        let etag = "\"" + String(repeating: "e", count: 200_000) + "\""
        let s = SpoolBuffer(name: "t")
        try s.append([1, 2, 3]); s.finish()
        let r = HTTPResponse(status: 200, reason: "OK", url: url, etag: etag, lastModified: nil, cacheControl: nil,
                             contentType: "image/gif", contentLength: nil, contentEncoding: nil)
        #expect(cache.store(url: url, response: r, spool: s))
        HTTPCache.forget(url)
        let hit = try #require(cache.lookup(url))
        #expect(hit.metadata.etag == etag)
        #expect(try hit.source.allBytes() == [1, 2, 3])
    }

    @Test func cellPixelSizesOutsideWhatScreensHaveAreRefused() {
        #expect(CellPixelBounds.problem(width: 10, height: 20, columns: 80, rows: 24) == nil)
        #expect(CellPixelBounds.problem(width: 10000, height: 10000, columns: 80, rows: 24) != nil)
        #expect(CellPixelBounds.problem(width: 3, height: 20, columns: 80, rows: 24) != nil)
        #expect(CellPixelBounds.problem(width: 512, height: 512, columns: 80, rows: 24) != nil)     // 40960 px wide
        #expect(CellPixelBounds.problem(width: 1 << 30, height: 1 << 30, columns: Int.max, rows: 1) != nil)
        #expect(CellPixelBounds.fits(width: 10, height: 20, columns: 384, rows: 108, memoryBytes: 512 << 20))
        #expect(!CellPixelBounds.fits(width: 512, height: 512, columns: 30, rows: 15, memoryBytes: 64 << 20))
    }
}

/// The plan believes only cell sizes a screen can have, and frames the memory limit allows.
@Suite struct OutputPlanBoundsTests {
    func decide(window: RenderSize?, reported: PixelSize?, screen: (columns: Int, rows: Int) = (80, 24),
                memoryBytes: Int = 512 << 20) -> (plan: OutputPlan, warning: String?) {
        var report = TerminalReport()
        report.answeredDA1 = true
        report.kittyReplies[TerminalQueries.kittyQueryID] = "OK"
        report.reportedCellPixels = reported
        let d = OutputPlan.decide(.auto, report: report, env: [:], tmuxAllowsPassthrough: { false }, windowCell: window,
                                  symbols: .half, screen: screen, memoryBytes: memoryBytes)
        return (d.plan, d.warning)
    }

    @Test func hostileCellSizesFallBackToCellsWithOneWarning() {
        let huge = decide(window: nil, reported: PixelSize(width: 10000, height: 10000))
        #expect(huge.plan == .cells(.half) && huge.warning?.contains("10000x10000") == true)
        // A window of 65535 px over 80x24 cells is not believed; a sane CSI 16 t answer is.
        let window = decide(window: RenderSize(width: 819, height: 2730), reported: PixelSize(width: 10, height: 20))
        #expect(window.plan.cell == RenderSize(width: 10, height: 20) && window.warning == nil)
        let tooBig = decide(window: RenderSize(width: 512, height: 512), reported: nil, screen: (30, 15), memoryBytes: 64 << 20)
        #expect(tooBig.plan == .cells(.half) && tooBig.warning?.contains("--max-memory-mb") == true)
        #expect(TerminalInfo(cell: RenderSize(width: 10, height: 20), reportedCell: RenderSize(width: 10, height: 20))
            .currentCell(window: RenderSize(width: 10000, height: 3)) == RenderSize(width: 10, height: 20))
    }
}
