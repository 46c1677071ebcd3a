import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal
import AnimatedTestSupport

/// kitty graphics inside tmux: where the pane is, and the cursor move that travels with a
/// placement inside every passthrough.
struct TerminalTmuxTests {
    @Test func paneOffsetAddsAStatusLineAtTheTop() {
        #expect(TmuxPane.parse("0 0 on bottom\n") == TmuxPane(top: 0, left: 0))
        #expect(TmuxPane.parse("12 81 on bottom\n") == TmuxPane(top: 12, left: 81))
        #expect(TmuxPane.parse("0 40 on top\n") == TmuxPane(top: 1, left: 40))
        #expect(TmuxPane.parse("3 0 2 top") == TmuxPane(top: 5, left: 0))
        #expect(TmuxPane.parse("3 0 off top") == TmuxPane(top: 3, left: 0))
        #expect(TmuxPane.parse("7 9") == TmuxPane(top: 7, left: 9))
        #expect(TmuxPane.parse("") == nil)
        #expect(TmuxPane.parse("no server running on /tmp/x") == nil)
        #expect(TmuxPane.parse("-1 4 on top") == nil)
        #expect(TmuxPane(top: 1, left: 40).cursor(row: 2, column: 3) == Array("\u{1B}[4;44H".utf8))
    }

    /// Each passthrough is self-contained: tmux re-homes the real cursor after every one, and
    /// kitty places the image when the last chunk arrives, so the cursor move is in every chunk.
    @Test func placementCarriesTheCursorMoveInEveryPassthrough() {
        let size = RenderSize(width: 64, height: 64)
        var rng = SplitMix(state: 7)
        let canvas = Canvas(width: 64, height: 64)
        canvas.withUnsafeMutableBytes { p in for i in 0..<p.count { p[i] = UInt8(truncatingIfNeeded: rng.next()) } }
        let text = KittyFramePreparer().scale(canvas, index: 0, to: size).payload.withUnsafeBytes { Base64.encode($0) }
        let cursor = TmuxPane(top: 1, left: 40).cursor(row: 2, column: 3)
        var plain: [UInt8] = [], wrapped: [UInt8] = []
        KittyGraphics().transmitAndPlace(id: 5, placement: 1, size: size, payload: text, cursor: cursor, to: &plain)
        KittyGraphics(tmux: true).transmitAndPlace(id: 5, placement: 1, size: size, payload: text,
                                                   cursor: cursor, to: &wrapped)
        // Outside tmux the move comes once, before the command.
        #expect(Array(plain.prefix(cursor.count)) == cursor)
        let segments = passthroughs(wrapped)
        #expect(segments.count > 1, "a noisy 64x64 frame needs several chunks")
        for s in segments {
            #expect(Array(s.prefix(cursor.count + 3)) == cursor + [0x1B, 0x5F, 0x47])
        }
        var a = MiniKitty(), b = MiniKitty()
        a.feed(plain); b.feed(wrapped)
        #expect(b.errors.isEmpty && b.text.isEmpty, "\(b.errors)")
        #expect(a.commands == b.commands)
        #expect(b.shown(5) == a.shown(5))
    }

    /// The unwrapped body of every `ESC P tmux; … ESC \` in `b` (nothing may lie between them).
    private func passthroughs(_ b: [UInt8]) -> [[UInt8]] {
        let prefix: [UInt8] = [0x1B, 0x50] + Array("tmux;".utf8)
        var out: [[UInt8]] = [], i = 0
        while i < b.count {
            guard b.count - i >= prefix.count, Array(b[i..<(i + prefix.count)]) == prefix else {
                Issue.record("bytes outside a passthrough at \(i)"); return out
            }
            var j = i + prefix.count, body: [UInt8] = []
            while j < b.count {
                if b[j] == 0x1B && j + 1 < b.count && b[j + 1] == 0x1B { body.append(0x1B); j += 2; continue }
                if b[j] == 0x1B && j + 1 < b.count && b[j + 1] == 0x5C { j += 2; break }
                body.append(b[j]); j += 1
            }
            out.append(body)
            i = j
        }
        return out
    }
}
