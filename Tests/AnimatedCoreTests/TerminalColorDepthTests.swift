import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal

/// Colour depth from the terminal's own answers (the replies are the ones Debian's xterm 379,
/// mlterm and kitty 0.26 gave under Xvfb to `TerminalQueries.colorDepth`).
@Suite struct TerminalColorDepthTests {
    func report(_ replies: String) -> TerminalReport {
        var parser = TerminalReplyParser()
        var r = TerminalReport()
        for e in parser.feed(Array(replies.utf8)) + parser.finish() { r.apply(e) }
        return r
    }

    func facts(colors: Int, _ r: TerminalReport) -> TerminalColorFacts {
        var f = TerminalColorFacts(colors: colors, pairs: 64, hasRGB: false, colortermTruecolor: false, canSaveCursor: true)
        f.answeredDirectColor = r.directColor == true
        f.answeredColors = r.answeredColors ?? 0
        return f
    }

    @Test func xtermReadsTheDirectColourBack() {
        let r = report("\u{1B}P1$r0;38:2::1:2:3m\u{1B}\\\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[?64;1;2;6;9;15;16;17;18;21;22;28c")
        #expect(r.graphicRendition == "0;38:2::1:2:3" && r.directColor == true)
        // TERM=xterm's entry says 8 colours: truecolor anyway, never 16.
        #expect(ColorSelection.choose(.auto, facts: facts(colors: 8, r)).0 == .truecolor)
    }

    @Test func mltermMapsItToItsPaletteAndSays256() {
        let r = report("\u{1B}P1$r0;38;5;16m\u{1B}\\\u{1B}P0+r\u{1B}\\\u{1B}P0+r\u{1B}\\\u{1B}P1+r636f6c6f7273=323536\u{1B}\\\u{1B}P1+r544e=6D6C7465726D\u{1B}\\")
        #expect(r.directColor == false)
        #expect(r.answeredColors == 256 && r.capabilities["colors"] == "256" && r.capabilities["TN"] == "mlterm")
        #expect(ColorSelection.choose(.auto, facts: facts(colors: 8, r)).0 == .palette256)
    }

    @Test func kittyWithoutAColourspaceField() {
        let r = report("\u{1B}P1$r38:2:1:2:3m\u{1B}\\\u{1B}P0+r524742\u{1B}\\\u{1B}P0+r5463\u{1B}\\\u{1B}P1+r636f6c6f7273=323536\u{1B}\\")
        #expect(r.directColor == true && r.capabilities["RGB"] == nil)
    }

    @Test func capabilitiesAndSemicolonForms() {
        #expect(report("\u{1B}P1+r524742\u{1B}\\").directColor == true)                 // RGB, boolean
        #expect(report("\u{1B}P1+r5463\u{1B}\\").directColor == true)                   // Tc
        #expect(report("\u{1B}P1$r38;2;1;2;3m\u{1B}\\").directColor == true)
        #expect(report("\u{1B}P1$r38;2;1;2;4m\u{1B}\\").directColor == false)           // not our colour
        #expect(report("\u{1B}P1$r0m\u{1B}\\").directColor == false)                    // dropped it
        #expect(report("\u{1B}P1$r0m\u{1B}\\").answeredColors == nil)
        #expect(report("").directColor == nil)                                         // silent
        // Malformed or hostile hex: no capability, nothing unprintable kept.
        #expect(report("\u{1B}P1+rZZ=31\u{1B}\\").capabilities.isEmpty)
        #expect(report("\u{1B}P1+r544e=1b5b324a\u{1B}\\").capabilities["TN"] == "?[2J")
    }

    @Test func silentTerminalKeepsTerminfosWord() {
        let r = report("\u{1B}[?62;c")
        #expect(ColorSelection.choose(.auto, facts: facts(colors: 8, r)).0 == .palette16)
        #expect(ColorSelection.choose(.auto, facts: facts(colors: 256, r)).0 == .palette256)
    }

    @Test func depthQueriesGoInTheRoundButNotThroughTmux() {
        let plain = TerminalQueries.round(insideTmux: false)
        #expect(plain.contains(TerminalQueries.directColorReadBack))
        #expect(TerminalQueries.capability("RGB") == Array("\u{1B}P+q524742\u{1B}\\".utf8))
        let tmux = TerminalQueries.round(insideTmux: true)
        #expect(tmux.contains(TerminalQueries.directColorReadBack))
        #expect(!tmux.contains(TerminalQueries.tmuxPassthrough(TerminalQueries.directColorReadBack)))
    }
}

/// Which block glyphs will show: drawn by the terminal (kitty, by version) or in a font.
@Suite struct SymbolSupportTests {
    @Test func kittyVersionsDrawWhatTheyDraw() {
        #expect(SymbolSupport.drawnByTerminal(.sextant, version: "kitty(0.26.5)"))
        #expect(!SymbolSupport.drawnByTerminal(.octant, version: "kitty(0.26.5)"))
        #expect(SymbolSupport.drawnByTerminal(.octant, version: "kitty(0.40.0)"))
        #expect(SymbolSupport.drawnByTerminal(.octant, version: "kitty(1.2.0)"))
        #expect(!SymbolSupport.drawnByTerminal(.sextant, version: "kitty(0.18.3)"))
        #expect(!SymbolSupport.drawnByTerminal(.sextant, version: "XTerm(379)"))
        #expect(!SymbolSupport.drawnByTerminal(.sextant, version: nil))
    }

    @Test func finestSetThatShows() {
        let none: (UInt32) -> Bool? = { _ in false }
        let unknown: (UInt32) -> Bool? = { _ in nil }
        let sextantFont: (UInt32) -> Bool? = { $0 == 0x1FB00 }
        #expect(SymbolSupport.usable(.octant, version: "kitty(0.26.5)", fontHas: none) == .sextant)
        #expect(SymbolSupport.usable(.octant, version: "kitty(0.40.0)", fontHas: none) == .octant)
        #expect(SymbolSupport.usable(.octant, version: "XTerm(379)", fontHas: none) == .quadrant)
        #expect(SymbolSupport.usable(.octant, version: "XTerm(379)", fontHas: sextantFont) == .sextant)
        #expect(SymbolSupport.usable(.sextant, version: "XTerm(379)", fontHas: none) == .quadrant)
        // Over ssh the fonts are the other machine's: the request stands.
        #expect(SymbolSupport.usable(.octant, version: nil, fontHas: unknown) == .octant)
        #expect(SymbolSupport.usable(.half, version: nil, fontHas: none) == .half)
        #expect(SymbolSupport.usable(.quadrant, version: nil, fontHas: none) == .quadrant)
    }
}
