import CNcurses
import Testing
@testable import animplay

@Suite struct KeyMapTests {
    private func bytes(_ s: String) -> [Int32] { s.utf8.map { Int32($0) } }
    private let esc = "\u{1B}"

    @Test func onlyQLoneEscAndCtrlCQuit() {
        #expect(KeyMap.actions(for: bytes("q")) == [.quit])
        #expect(KeyMap.actions(for: [0x03]) == [.quit])
        #expect(KeyMap.actions(for: bytes(esc)) == [.quit])
        // Esc then other bytes in the same batch is a sequence, never a quit.
        for seq in ["x", "OM", "Ou", "OE", "Oq", "[20~", "[1;5C", "[57413u", "[", "O", "\u{1B}"] {
            #expect(KeyMap.actions(for: bytes(esc + seq)) == [], "Esc \(seq)")
        }
        #expect(KeyMap.actions(for: [KeyMap.escape, KEY_LEFT]) == [])      // Alt+← decoded by ncurses
    }

    @Test func keypadPlusMinusZeroActLikeTheMainKeys() {
        #expect(KeyMap.actions(for: bytes(esc + "Ok")) == [.faster])
        #expect(KeyMap.actions(for: bytes(esc + "Om")) == [.slower])
        #expect(KeyMap.actions(for: bytes(esc + "Op")) == [.restart])
        #expect(KeyMap.actions(for: bytes("+-0")) == [.faster, .slower, .restart])   // numeric keypad mode
    }

    @Test func sequencesInOneBatchAreReadWhole() {
        // F9 holds a '0' and Ctrl-Right a '5' and a 'C': none of them acts; the keys around do.
        let batch = bytes(" " + esc + "[20~" + esc + "[1;5C" + esc + "x" + "r" + esc + "Ok" + "i")
        #expect(KeyMap.actions(for: batch) == [.togglePause, .toggleReverse, .faster, .toggleStatus])
        #expect(KeyMap.actions(for: bytes(esc + "Ok" + esc)) == [.faster, .quit])
    }

    @Test func arrowsInEitherCursorMode() {
        #expect(KeyMap.actions(for: [KEY_RIGHT, KEY_LEFT]) == [.step(1), .step(-1)])
        #expect(KeyMap.actions(for: bytes(esc + "[C" + esc + "[D" + esc + "OC" + esc + "OD"))
                == [.step(1), .step(-1), .step(1), .step(-1)])
        #expect(KeyMap.actions(for: bytes(esc + "[H")) == [.restart])
    }
}
