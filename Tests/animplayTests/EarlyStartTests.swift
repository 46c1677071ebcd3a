import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AnimatedCore
@testable import animplay

/// The guessed file opened and its frame 0 decoded from before the arguments are parsed: which
/// arguments allow the guess, that only the file the play command opens takes it, and when its
/// decoder stands for the one `open` would make. Serialized: the guess is the process's.
@Suite(.serialized) struct EarlyStartTests {
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
            #expect(EarlyStart.guessedFile([a]) == a)
            #expect(EarlyStart.guessedFile(["--loop", "3", "--graphics", "sixel", a, "--fill"]) == a)
            #expect(EarlyStart.guessedFile(["play", "--speed=2", a]) == a)
            #expect(EarlyStart.guessedFile(["--", a]) == a)
            #expect(EarlyStart.guessedFile(["--status", a, "/no/such/file.gif"]) == a)
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
                #expect(EarlyStart.guessedFile(arguments) == nil, "\(arguments)")
            }
        }
    }

    /// A guessed play's arguments are parsed by `play` as the root command (`Animplay.main`):
    /// only when no argument could be a subcommand, and with the options the root would have
    /// handed `play`.
    @Test func aGuessedPlayIsParsedAsTheRootWouldParseIt() throws {
        try Self.withFiles { _, a, b in
            #expect(EarlyStart.playArguments([a]) == [a])
            #expect(EarlyStart.playArguments(["play", "--speed=2", a]) == ["--speed=2", a])
            for arguments in [[a, "help"], [a, "dump"], ["--fill", a, "info"], [a, b], ["info", a], ["--help", a]] {
                #expect(EarlyStart.playArguments(arguments) == nil, "\(arguments)")
            }
            for arguments in [[a], ["play", a, "--loop", "3"], ["--graphics", "sixel", "--fill", a, "--speed", "2"],
                              ["--status", "--size", "40x10", "--", a], ["--no-cache", a, "--bg", "#102030", "--dither", "none", "--mode", "bounce"]] {
                let playArguments = try #require(EarlyStart.playArguments(arguments))
                let direct = try #require(try Play.parseAsRoot(playArguments) as? Play)
                let viaRoot = try #require(try Animplay.parseAsRoot(arguments) as? Play)
                #expect(String(describing: direct) == String(describing: viaRoot), "\(arguments)")
                #expect(direct.source.files == viaRoot.source.files && direct.plays == viaRoot.plays)
            }
            // (The descriptions hold the options' values: they differ when an option does.)
            #expect(String(describing: try Play.parse([a])) != String(describing: try Play.parse([a, "--loop", "3"])))
            // What play refuses, it refuses as the root does (the CLI then reports the root's error).
            #expect(throws: (any Error).self) { try Play.parseAsRoot([a, "--loop", "-1"]) }
            #expect(throws: (any Error).self) { try Animplay.parseAsRoot([a, "--loop", "-1"]) }
        }
    }

    @Test func onlyThePlayedFileTakesTheGuessAndAnyOtherDropsIt() throws {
        try Self.withFiles { _, a, b in
            EarlyStart.start([a])
            #expect(EarlyStart.take(for: b) == nil)
            #expect(EarlyStart.take(for: a) == nil, "dropped by the take for another file")
            EarlyStart.start([a])
            #expect(EarlyStart.take(for: nil) == nil)
            #expect(EarlyStart.take(for: a) == nil, "dropped by a run that plays no file")
            EarlyStart.start([a])
            let guess = try #require(EarlyStart.take(for: a))
            // Its decoder is the file's, and its frame 0 is the compositor's frame 0 of it.
            let decoder = try guess.decoder.decoder()
            let plain = try Compositor(decoder: GIFDecoder(source: ByteSource(path: a), options: DecodeOptions()))
            #expect(decoder.info.frameCount == plain.info.frameCount && decoder.info.frameCount > 1)
            let taken = try Compositor(decoder: FirstFrameAhead(decoder, early: guess.frameZero))
            #expect(taken.currentIndex == 0)
            #expect(Array(taken.frame(at: 0).pixels) == Array(plain.frame(at: 0).pixels))
        }
    }

    /// A run whose arguments `play` refused (a usage error follows) lets the guess go without
    /// waiting for its threads: no guess is left, and a decoder let go opens the file again.
    @Test func anAbandonedGuessIsGoneAndADetachedDecoderOpensAgain() throws {
        try Self.withFiles { _, a, _ in
            EarlyStart.start([a])
            EarlyStart.abandon()
            #expect(EarlyStart.take(for: a) == nil)
            EarlyStart.abandon()      // nothing to abandon: nothing happens
            let ahead = DecoderAhead(path: a, options: DecodeOptions())
            ahead.detach()
            let reopened = try ahead.decoder()
            #expect(reopened.info.frameCount > 1)
        }
    }

    /// `play`'s own options decide whether the decoder opened ahead is used: the same file and
    /// the same decoding options only; refusals are `open`'s own.
    @Test func theDecoderOpenedAheadIsUsedOnlyForTheSameFileAndOptions() throws {
        try Self.withFiles { _, a, b in
            let ahead = DecoderAhead(path: a, options: DecodeOptions())
            let plain = try Play.parse([a])
            let opened = try #require(try plain.source.openAhead(plain.decodeOptions, ahead))
            #expect(opened.spool == nil && opened.decoder.info.frameCount > 1)
            for arguments in [[b], ["--delay", "50", a], ["--fps", "10", a], ["--raw-delays", a]] {
                let play = try Play.parse(arguments)
                #expect(try play.source.openAhead(play.decodeOptions, DecoderAhead(path: a, options: DecodeOptions())) == nil,
                        "\(arguments)")
            }
            let frames = try Play.parse(["--frames", "2", a])
            #expect(throws: CLIFailure.self) { try frames.source.openAhead(frames.decodeOptions, DecoderAhead(path: a, options: DecodeOptions())) }
        }
    }

    @Test func aFileThatCannotBeOpenedGivesTheErrorOpeningGives() throws {
        try Self.withFiles { dir, _, _ in
            let text = dir + "/text.gif"
            let fd = open(text, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            try #require(fd >= 0)
            _ = "not an image".withCString { write(fd, $0, 12) }
            close(fd)
            defer { unlink(text) }
            var direct: AnimatedError?
            do throws(AnimatedError) { _ = try AnimationLoader.open(ByteSource(path: text)) } catch { direct = error }
            var ahead: AnimatedError?
            do throws(AnimatedError) { _ = try DecoderAhead(path: text, options: DecodeOptions()).decoder() } catch { ahead = error }
            #expect(direct != nil && ahead == direct)
        }
    }
}

extension EarlyStart {
    /// What `Animplay.main` does with `arguments`, without starting anything: the arguments
    /// `play` would parse as the root command when they allow a guess (`start`) and none
    /// could be taken for a subcommand (`playArguments(guessed:)`).
    static func playArguments(_ arguments: [String]) -> [String]? {
        guessedFile(arguments) == nil ? nil : playArguments(guessed: arguments)
    }
}
