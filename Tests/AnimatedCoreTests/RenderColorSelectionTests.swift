import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct RenderColorSelectionTests {
    let xterm256 = TerminalColorFacts(colors: 256, pairs: 65536, hasRGB: false, colortermTruecolor: false, canSaveCursor: true)

    @Test func colortermTruecolorOnXterm256GetsDirect24Bit() {
        var f = xterm256; f.colortermTruecolor = true
        #expect(ColorSelection.choose(.auto, facts: f) == (.truecolor, .direct))
        #expect(TerminalColorFacts.colortermSaysTruecolor("24bit"))
        #expect(TerminalColorFacts.colortermSaysTruecolor("truecolor"))
        #expect(!TerminalColorFacts.colortermSaysTruecolor("yes"))
        #expect(!TerminalColorFacts.colortermSaysTruecolor(nil))
    }

    @Test func plainXterm256UsesNcursesPairs() {
        #expect(ColorSelection.choose(.auto, facts: xterm256) == (.palette256, .curses))
        var f = xterm256; f.colortermTruecolor = true
        #expect(ColorSelection.choose(.palette256, facts: f) == (.palette256, .curses))
        #expect(ColorSelection.choose(.palette16, facts: f) == (.palette16, .curses))
    }

    @Test func rgbTerminfoMeansTruecolor() {
        var f = xterm256; f.hasRGB = true; f.colors = 0x100_0000
        #expect(ColorSelection.choose(.auto, facts: f) == (.truecolor, .direct))
    }

    @Test func smallPairTablesAreNotTrustedWithThePalette() {
        var f = xterm256; f.pairs = 32767
        #expect(ColorSelection.choose(.auto, facts: f) == (.palette256, .direct))
        let vt = TerminalColorFacts(colors: 8, pairs: 64, hasRGB: false, colortermTruecolor: false, canSaveCursor: true)
        #expect(ColorSelection.choose(.auto, facts: vt) == (.palette16, .direct))
    }

    @Test func withoutSaveCursorTruecolorFallsBackToNcurses() {
        var f = xterm256; f.canSaveCursor = false; f.colortermTruecolor = true
        #expect(ColorSelection.choose(.truecolor, facts: f) == (.palette256, .curses))
        #expect(ColorSelection.choose(.auto, facts: f) == (.palette256, .curses))
    }

    @Test func colourlessTerminalWithoutSaveCursorIsUnsupported() {
        let dumb = TerminalColorFacts(colors: 0, pairs: 0, hasRGB: false, colortermTruecolor: false, canSaveCursor: false)
        #expect(ColorSelection.choose(.auto, facts: dumb).1 == .unsupported)
        #expect(ColorSelection.choose(.truecolor, facts: dumb).1 == .unsupported)
        var vt100 = dumb; vt100.canSaveCursor = true
        #expect(ColorSelection.choose(.auto, facts: vt100) == (.palette16, .direct))
    }
}
