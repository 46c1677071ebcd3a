import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AnimatedCore
@testable import animplay

/// Frame 0 decoded from before the arguments are parsed: which arguments allow the guess, and
/// that only the file the play command opens takes it. Serialized: the guess is the process's.
@Suite(.serialized) struct EarlyFirstFrameTests {
    /// A folder with two regular files (`a.gif` the bundled sample, `b.gif` a copy) for `body`.
    static func withFiles(_ body: (_ dir: String, _ a: String, _ b: String) throws -> Void) throws {
        var template = Array("/tmp/animplay-guess-XXXXXX".utf8CString)
        let dir = try #require(mkdtemp(&template).map { String(cString: $0) })
        var sample = #filePath
        for _ in 0..<3 { sample = String(sample[..<sample.lastIndex(of: "/")!]) }
        let source = try ByteSource(path: sample + "/samples/bounce.gif")
        let bytes = try source.bytes(at: 0, length: source.count)
        let (a, b) = (dir + "/a.gif", dir + "/b.gif")
        for path in [a, b] {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            try #require(fd >= 0)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        defer { unlink(a); unlink(b); rmdir(dir) }
        try body(dir, a, b)
    }

    @Test func theOneFileNamedAmongOptionsIsGuessed() throws {
        try Self.withFiles { _, a, _ in
            #expect(EarlyFirstFrame.guessedFile([a]) == a)
            #expect(EarlyFirstFrame.guessedFile(["--loop", "3", "--graphics", "sixel", a, "--fill"]) == a)
            #expect(EarlyFirstFrame.guessedFile(["play", "--speed=2", a]) == a)
            #expect(EarlyFirstFrame.guessedFile(["--", a]) == a)
            #expect(EarlyFirstFrame.guessedFile(["--status", a, "/no/such/file.gif"]) == a)
        }
    }

    @Test func noGuessWherePlayWouldNotTakeItOrLimitsAreSet() throws {
        try Self.withFiles { dir, a, b in
            for arguments in [[a, b], [dir], ["/no/such/file.gif"], ["-"], [],
                              ["info", a], ["dump", a, "-o", dir], ["convert", a, b], ["cache", "clear"],
                              ["--inline", a], ["--frame", "0", a], ["--frame=0", a], ["--grid", "2x2", a],
                              ["--sprite", "2x2", a], ["--atlas=x.json", a], ["--max-pixels", "100", a],
                              ["--max-memory-mb=1", a], ["-h", a], ["--help", a], ["--version"],
                              ["--generate-completion-script", "bash"]] {
                #expect(EarlyFirstFrame.guessedFile(arguments) == nil, "\(arguments)")
            }
        }
    }

    @Test func onlyThePlayedFileTakesTheGuessAndAnyOtherDropsIt() throws {
        try Self.withFiles { _, a, b in
            EarlyFirstFrame.start([a])
            #expect(EarlyFirstFrame.take(for: b) == nil)
            #expect(EarlyFirstFrame.take(for: a) == nil, "dropped by the take for another file")
            EarlyFirstFrame.start([a])
            #expect(EarlyFirstFrame.take(for: nil) == nil)
            #expect(EarlyFirstFrame.take(for: a) == nil, "dropped by a run that plays no file")
            EarlyFirstFrame.start([a])
            let early = try #require(EarlyFirstFrame.take(for: a))
            // It is frame 0 of that file: the compositor takes it as drawn.
            let decoder = try GIFDecoder(source: ByteSource(path: a), options: DecodeOptions())
            let taken = try Compositor(decoder: FirstFrameAhead(decoder, early: early))
            #expect(taken.currentIndex == 0)
            let plain = try Compositor(decoder: GIFDecoder(source: ByteSource(path: a), options: DecodeOptions()))
            #expect(Array(taken.frame(at: 0).pixels) == Array(plain.frame(at: 0).pixels))
        }
    }
}
