import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct TerminalKeyFilterTests {
    func codes(_ s: String) -> [Int32] { s.utf8.map(Int32.init) }

    @Test func lateRepliesVanishKeysStay() {
        var f = KeyReplyFilter()
        let late = "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\" + "\u{1B}[?62;22c" + "\u{1B}P>|kitty(0.26.5)\u{1B}\\"
            + "\u{1B}_Gi=31;OK\u{1B}\\" + "\u{1B}[6;20;10t"
        #expect(f.filter(codes("r" + late + "q"), now: 1) == codes("rq"))
    }

    @Test func repliesSplitAcrossBatchesVanish() {
        var f = KeyReplyFilter()
        #expect(f.filter(codes("\u{1B}]11;rgb:00"), now: 1) == [])
        #expect(f.filter(codes("00/0000/0000\u{1B}\\ "), now: 2) == codes(" "))
    }

    @Test func escapeArrowsAndAltKeysPassUnchanged() {
        var f = KeyReplyFilter()
        #expect(f.filter([0x1B], now: 1) == [0x1B])                      // a lone Esc
        #expect(f.filter(codes("\u{1B}[1;5C"), now: 2) == codes("\u{1B}[1;5C"))
        #expect(f.filter(codes("\u{1B}Ok"), now: 3) == codes("\u{1B}Ok"))  // keypad +
        #expect(f.filter(codes("\u{1B}x"), now: 4) == codes("\u{1B}x"))    // Alt-x
        let keyLeft: Int32 = 0o404
        #expect(f.filter([0x1B, keyLeft, 0x20], now: 5) == [0x1B, keyLeft, 0x20])
    }

    @Test func aStuckSequenceIsForgotten() {
        var f = KeyReplyFilter()
        #expect(f.filter(codes("\u{1B}]"), now: 0) == [])               // Alt+]: looks like an OSC
        #expect(f.filter(codes("q"), now: KeyReplyFilter.staleNanoseconds + 1) == codes("q"))
    }
}
