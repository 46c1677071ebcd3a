import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct TerminalReplyParserTests {
    typealias Event = TerminalReplyParser.Event

    static let kittyAnswers: [UInt8] = Array((
        "\u{1B}]11;rgb:1e1e/2020/3030\u{1B}\\" + "\u{1B}]10;rgb:dddd/dddd/dddd\u{7}"
        + "\u{1B}]4;1;rgb:cc/00/00\u{1B}\\" + "\u{1B}]4;12;#5c5cff\u{1B}\\"
        + "\u{1B}_Gi=31;OK\u{1B}\\" + "\u{1B}[6;20;10t" + "\u{1B}P>|kitty(0.26.5)\u{1B}\\"
        + "\u{1B}[?62;c").utf8)

    static let xtermSixelAnswers: [UInt8] = Array((
        "\u{1B}]11;rgb:ffff/ffff/dddd\u{1B}\\" + "\u{1B}[?1;0;256S" + "\u{1B}P>|XTerm(379)\u{1B}\\"
        + "\u{1B}[?64;1;2;4;6;9;15;18;21;22c").utf8)

    func report(_ events: [Event]) -> TerminalReport {
        var r = TerminalReport()
        for e in events { r.apply(e) }
        return r
    }

    func parse(_ bytes: [UInt8], pieces size: Int) -> [Event] {
        TerminalReplyParser.events(of: bytes, pieces: size)
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func kittyLikeAnswersInAnySplit(size: Int) {
        let events = parse(Self.kittyAnswers, pieces: size)
        #expect(!events.contains { if case .keys = $0 { true } else { false } })
        let r = report(events)
        #expect(r.answeredDA1 && r.da1Attributes == [62, 0] && !r.sixel)
        #expect(r.kittyGraphics)
        #expect(r.version == "kitty(0.26.5)")
        #expect(r.reportedCellPixels == PixelSize(width: 10, height: 20))
        #expect(r.background == RGBColor(0x1E, 0x20, 0x30))
        #expect(r.foreground == RGBColor(0xDD, 0xDD, 0xDD))
        #expect(r.palette16[1] == RGBColor(0xCC, 0, 0))
        #expect(r.palette16[12] == RGBColor(0x5C, 0x5C, 0xFF))
        #expect(r.palette16[0] == nil && r.answeredPalette16 == nil)
    }

    @Test func xtermSixelAnswers() {
        let r = report(parse(Self.xtermSixelAnswers, pieces: 5))
        #expect(r.sixel && r.colorRegisters == 256 && !r.kittyGraphics)
        #expect(r.version == "XTerm(379)")
        #expect(r.background == RGBColor(255, 255, 0xDD))
    }

    @Test func keysTypedBetweenRepliesAreKeptInOrderAndRepliesNeverLeak() {
        // 'q', an arrow key, Alt-x, a keypad key (SS3), a kitty-keyboard key, UTF-8 'é'.
        let typed: [[UInt8]] = [[0x71], Array("\u{1B}[A".utf8), [0x1B, 0x78], Array("\u{1B}Ok".utf8),
                                Array("\u{1B}[97;5u".utf8), [0xC3, 0xA9], Array("\u{1B}[1;5C".utf8)]
        // Interleave one key sequence after each reply.
        let replies = splitReplies(Self.kittyAnswers)
        var stream: [UInt8] = []
        for (i, r) in replies.enumerated() {
            stream += r
            if i < typed.count { stream += typed[i] }
        }
        for size in [1, 4, 64] {
            let events = parse(stream, pieces: size)
            var keys: [UInt8] = []
            for case .keys(let k) in events { keys += k }
            let expected: [UInt8] = typed.prefix(replies.count).flatMap { $0 }
            #expect(keys == expected, "pieces of \(size)")
            #expect(report(events).kittyGraphics && report(events).answeredDA1)
        }
    }

    /// Cuts the canned answers at each reply boundary (every reply here starts with ESC and
    /// contains no other ESC except its ST).
    func splitReplies(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var cur: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B && i + 1 < bytes.count && bytes[i + 1] != 0x5C && !cur.isEmpty {
                out.append(cur); cur = []
            }
            cur.append(b); i += 1
        }
        out.append(cur)
        return out
    }

    @Test func loneEscapeAtTheEndIsTheEscKeyButCutRepliesAreDropped() {
        var p = TerminalReplyParser()
        #expect(p.feed([0x1B]).isEmpty)
        #expect(p.finish() == [.keys([0x1B])])
        for cut in ["\u{1B}]11;rgb:00", "\u{1B}[?62;", "\u{1B}_Gi=31;O", "\u{1B}P>|kit", "\u{1B}]11;rgb:0/0/0\u{1B}"] {
            var p = TerminalReplyParser()
            let events = p.feed(Array(cut.utf8)) + p.finish()
            #expect(events.isEmpty, "\(cut.debugDescription)")
        }
    }

    @Test func escEscIsAnEscKeyFollowedByTheNextSequence() {
        var p = TerminalReplyParser()
        let events = p.feed(Array("\u{1B}\u{1B}[?62;4c".utf8)) + p.finish()
        #expect(events == [.keys([0x1B]), .primaryDeviceAttributes([62, 4])])
    }

    @Test func overlongStringsAreConsumedNotTurnedIntoKeys() {
        var bytes = Array("\u{1B}]11;".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "a"), count: 10_000)
        bytes += Array("\u{1B}\\x\u{1B}[?1c".utf8)
        let events = parse(bytes, pieces: 333)
        #expect(events == [.otherReply, .keys([UInt8(ascii: "x")]), .primaryDeviceAttributes([1])])
    }

    @Test func unaskedRepliesAreIgnoredNotKeys() {
        let s = "\u{1B}]52;c;aGk=\u{7}\u{1B}[4;800;1200t\u{1B}P1$r0\"q\u{1B}\\\u{1B}_Gi=7;ENOENT:x\u{1B}\\"
        let events = parse(Array(s.utf8), pieces: 2)
        #expect(events == [.otherReply, .otherReply, .otherReply, .kittyGraphics(id: 7, message: "ENOENT:x")])
        #expect(!report(events).kittyGraphics)
    }

    @Test func colourSpecs() {
        #expect(RGBColor(xColorSpec: "rgb:ffff/8080/0000") == RGBColor(255, 128, 0))
        #expect(RGBColor(xColorSpec: "rgb:f/8/0") == RGBColor(255, 136, 0))
        #expect(RGBColor(xColorSpec: "rgb:fff/800/000") == RGBColor(255, 128, 0))
        #expect(RGBColor(xColorSpec: "rgba:ffff/0000/0000/ffff") == RGBColor(255, 0, 0))
        #expect(RGBColor(xColorSpec: "#102030") == RGBColor(0x10, 0x20, 0x30))
        #expect(RGBColor(xColorSpec: "rgb:zz/00/00") == nil)
        #expect(RGBColor(xColorSpec: "rgb:00/00") == nil)
        #expect(RGBColor(xColorSpec: "black") == nil)
    }

    @Test func cellSizePrefersTheKernelsPixels() {
        var r = TerminalReport()
        r.apply(.cellPixels(width: 9, height: 18))
        #expect(r.cellPixelSize == PixelSize(width: 9, height: 18))
        r.windowColumns = 120; r.windowRows = 40; r.windowPixels = PixelSize(width: 1200, height: 800)
        #expect(r.cellPixelSize == PixelSize(width: 10, height: 20))
    }

    @Test func queriesEndWithDA1AndWrapForTmux() {
        let plain = TerminalQueries.round(insideTmux: false).flatMap { $0 }
        #expect(plain.suffix(3) == ArraySlice(Array("\u{1B}[c".utf8)))
        let wrapped = TerminalQueries.tmuxPassthrough(Array("\u{1B}[c".utf8))
        #expect(wrapped == Array("\u{1B}Ptmux;\u{1B}\u{1B}[c\u{1B}\\".utf8))
        let tmux = TerminalQueries.round(insideTmux: true).flatMap { $0 }
        #expect(tmux.suffix(wrapped.count) == ArraySlice(wrapped))
        // The round parses back as no keys: our own queries echoed would be dropped, not typed.
        #expect(TerminalQueries.expectedDA1(insideTmux: true) == 2)
    }
}

/// The parser's answer does not depend on how the tty cut the stream into reads.
@Suite struct TerminalReplyParserSplitTests {
    /// Events with consecutive key runs merged (a read boundary may split a run of keys).
    static func normalised(_ events: [TerminalReplyParser.Event]) -> [TerminalReplyParser.Event] {
        var out: [TerminalReplyParser.Event] = []
        for e in events {
            if case .keys(let k) = e, case .keys(let prev)? = out.last {
                out[out.count - 1] = .keys(prev + k)
            } else {
                out.append(e)
            }
        }
        return out
    }

    static let pieces: [[UInt8]] = [
        "\u{1B}]11;rgb:1e1e/2020/3030\u{1B}\\", "\u{1B}]4;3;rgb:cd/cd/00\u{7}", "\u{1B}_Gi=31;OK\u{1B}\\",
        "\u{1B}[?62;4;22c", "\u{1B}[?1;0;256S", "\u{1B}[6;20;10t", "\u{1B}P>|XTerm(379)\u{1B}\\",
        "q", "\u{1B}[A", "\u{1B}Ok", "\u{1B}x", "\u{1B}", "\u{1B}\u{1B}", "\u{1B}]", "\u{1B}P", "\u{1B}[", "\u{7}",
        "é", "\u{1B}\\", "0", "r", "\u{1B}[1;5C", "\u{1B}[97;5u",
    ].map { Array($0.utf8) }

    @Test func anySplitGivesTheSameEvents() {
        var rng = TestRandom("anySplitGivesTheSameEvents")
        for round in 0..<300 {
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                if Bool.random(using: &rng) {
                    stream += Self.pieces.randomElement(using: &rng)!
                } else {
                    stream.append(UInt8.random(in: 0...255, using: &rng))
                }
            }
            var whole = TerminalReplyParser()
            let expected = Self.normalised(whole.feed(stream) + whole.finish())
            var split = TerminalReplyParser()
            var events: [TerminalReplyParser.Event] = []
            var i = 0
            while i < stream.count {
                let n = Int.random(in: 1...5, using: &rng)
                events += split.feed(stream[i..<min(stream.count, i + n)])
                i += n
            }
            events += split.finish()
            #expect(Self.normalised(events) == expected, "round \(round), \(rng): \(stream)")
            // Keys are never more than what came in.
            var keys = 0
            for case .keys(let k) in expected { keys += k.count }
            #expect(keys <= stream.count)
        }
    }
}
