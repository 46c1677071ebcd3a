import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal
import AnimatedTestSupport

/// The last frame is printed at the column it was shown at (centred), not at the left edge;
/// and inside tmux the kitty output places at the pane's offset after letting tmux settle.
@Suite struct OutputLastFrameTests {
    typealias P = OutputPlanTests

    @Test func cellsAreIndentedToTheirPlayingColumn() {
        let sink = RecordingSink(cell: P.cell10x20)
        let plan = OutputPlan.cells(.half)
        let (output, _, frame) = P.make(plan, sink: sink)
        let layout = P.layout(plan)
        #expect(layout.column > 0)
        output.show(frame(1, layout.size))
        output.printLast(indent: layout.column)
        var printed = MiniTerminal(cols: 30, rows: layout.rows + 1)
        printed.feed(sink.take())
        #expect(printed.errors.isEmpty, "\(printed.errors)")
        let c = layout.column
        #expect((0..<layout.rows).allSatisfy { printed.top[$0 * 30 + c] == P.rgb(P.blue) })
        #expect((0..<layout.rows).allSatisfy { printed.top[$0 * 30 + c - 1] != P.rgb(P.blue) })
    }

    @Test func kittyAndSixelMoveToTheColumnFirst() {
        for plan in [OutputPlan.kitty(TerminalInfo(cell: P.cell10x20), .direct), .sixel(TerminalInfo(cell: P.cell10x20))] {
            let sink = RecordingSink(cell: P.cell10x20)
            let (output, _, frame) = P.make(plan, sink: sink)
            let layout = P.layout(plan, columns: 60)
            output.show(frame(0, layout.size))
            output.printLast(indent: 7)
            #expect(sink.take().starts(with: Array("\r\u{1B}[7C".utf8)))
            output.printLast()                                   // a still: at the cursor, as before
            #expect(!sink.take().starts(with: Array("\r".utf8)))
        }
    }

    /// A sink inside tmux: the pane sits at row 3, column 40 of the outer screen.
    final class TmuxSink: TerminalSink {
        let base = RecordingSink(cell: P.cell10x20)
        var settled = 0
        func write(_ bytes: [UInt8]) { base.write(bytes) }
        var saveCursor: [UInt8] { base.saveCursor }
        var restoreCursor: [UInt8] { base.restoreCursor }
        var isWritable: Bool { true }
        var windowCellSize: RenderSize? { P.cell10x20 }
        func settle() { settled += 1 }
        func tmuxPane() -> TmuxPane? { TmuxPane(top: 3, left: 40) }
    }

    @Test func kittyInsideTmuxPlacesAtThePaneOffsetAfterSettling() {
        let sink = TmuxSink()
        let plan = OutputPlan.kitty(TerminalInfo(cell: P.cell10x20, tmuxPassthrough: true), .direct)
        let (preparer, makeOutput) = plan.build(background: .terminal)
        let output = makeOutput(nil, sink, OutputPlan.CellSettings(mode: .truecolor))
        let layout = RenderLayout(size: RenderSize(width: 80, height: 80), row: 2, column: 5, cell: P.cell10x20)
        output.show(preparer.scale(solidCanvas(8, 8, P.red), index: 0, to: layout.size))
        output.present(at: layout, status: nil)
        #expect(sink.settled == 1)
        let bytes = MiniKitty().unwrapTmux(sink.base.take())
        // The placement's cursor move, inside the passthrough: pane offset plus the cell.
        let move = Array("\u{1B}[6;46H\u{1B}_G".utf8)
        #expect(bytes.indices.contains { bytes[$0...].starts(with: move) })
        // The same layout again: no new settling, no new placement.
        output.show(preparer.scale(solidCanvas(8, 8, P.red), index: 0, to: layout.size))
        output.present(at: layout, status: nil)
        #expect(sink.settled == 1)
        #expect((output as? KittyOutput)?.lastFrameCanvas()?.snapshot().prefix(4) == [220, 30, 40, 255])
    }
}
