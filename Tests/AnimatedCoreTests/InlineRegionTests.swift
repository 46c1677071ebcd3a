import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal
import AnimatedTestSupport

/// `--inline` in pixels: the outputs draw into the rows reserved below the prompt by relative
/// moves (`InlineRegion`), each frame at the region's top with the cursor back below it, and
/// nothing scrolls after the reservation; kitty's animation becomes one still at the same place.
@Suite struct InlineRegionTests {
    typealias P = OutputPlanTests

    /// Follows the cursor of a terminal `rows` high through what the inline path writes (CR, LF
    /// with scrolling at the bottom, CUU/CUD/CUF, DECSC/DECRC), and notes where each image (a
    /// sixel DCS or a kitty APC) starts. After a sixel the cursor is unknown (terminals differ):
    /// only a restore makes it known again.
    struct CursorTrack {
        let rows: Int
        var row: Int, col = 0
        var saved: (Int, Int)?
        var scrolls = 0
        var images: [(row: Int, col: Int)] = []
        var unknown = false
        var errors: [String] = []

        init(rows: Int, row: Int) { self.rows = rows; self.row = row }

        mutating func feed(_ b: [UInt8]) {
            var i = 0
            func string(from j: Int) -> Int {        // index after the ST (ESC \) from j on
                var k = j
                while k + 1 < b.count && !(b[k] == 0x1B && b[k + 1] == 0x5C) { k += 1 }
                return k + 2
            }
            while i < b.count {
                switch b[i] {
                case 0x0D: col = 0; i += 1
                case 0x0A:
                    if row == rows - 1 { scrolls += 1 } else { row += 1 }
                    i += 1
                case 0x1B where i + 1 < b.count:
                    switch b[i + 1] {
                    case 0x37: saved = (row, col); i += 2
                    case 0x38:
                        if let saved { (row, col) = saved; unknown = false } else { errors.append("restore without save") }
                        i += 2
                    case 0x50:                                           // DCS: a sixel image
                        if unknown { errors.append("image at an unknown place") }
                        images.append((row, col)); unknown = true
                        i = string(from: i + 2)
                    case 0x5F:                                           // APC: kitty (C=1 keeps the cursor)
                        images.append((row, col))
                        i = string(from: i + 2)
                    case 0x5B:
                        var j = i + 2, params = ""
                        while j < b.count, !(0x40...0x7E).contains(b[j]) { params.append(Character(UnicodeScalar(b[j]))); j += 1 }
                        let n = max(1, Int(params) ?? 1)
                        switch b[j] {
                        case 0x41: row = max(0, row - n)
                        case 0x42: row = min(rows - 1, row + n)
                        case 0x43: col += n
                        case 0x4A, 0x68, 0x6C: break                   // ED, private modes (2026)
                        default: errors.append("unexpected CSI \(params)\(Character(UnicodeScalar(b[j])))")
                        }
                        i = j + 1
                    default: errors.append("unexpected ESC \(b[i + 1])"); i += 2
                    }
                default: i += 1
                }
            }
        }
    }

    /// A layout of `rows` rows for an 8x8 canvas at the region's top-left.
    static func layout(_ plan: OutputPlan, rows: Int) -> RenderLayout {
        var l = RenderLayout.compute(canvasWidth: 8, canvasHeight: 8, columns: 30, rows: rows, cell: plan.cell,
                                     terminalScales: plan.terminalScales)
        l.row = 0; l.column = 0
        return l
    }

    @Test func sixelFramesAreDrawnAtTheRegionsTopWithoutScrolling() {
        let sink = RecordingSink(cell: P.cell10x20)
        let region = InlineRegion(base: sink)
        let plan = OutputPlan.sixel(TerminalInfo(cell: P.cell10x20))
        let (preparer, makeOutput) = plan.build(background: .terminal)
        let output = makeOutput(nil, region, OutputPlan.CellSettings(mode: .truecolor))
        let layout = Self.layout(plan, rows: 4)
        // The prompt on the last row of 10: reserving 4 rows and a spare one scrolls 5 times.
        var track = CursorTrack(rows: 10, row: 9)
        region.reserve(layout.rows + 1)
        track.feed(sink.take())
        #expect(track.scrolls == 5 && track.row == 9)
        let frame = { (i: Int) in preparer.scale(solidCanvas(8, 8, i % 2 == 0 ? P.red : P.blue), index: i, to: layout.size) }
        for i in 0..<4 {
            output.show(frame(i))
            output.present(at: layout, status: nil)
        }
        let written = sink.take()
        track.feed(written)
        #expect(track.errors.isEmpty, "\(track.errors)")
        // Every frame at the top of the region (row 9 - 5), the cursor back on the line below it.
        #expect(track.images.count == 4 && track.images.allSatisfy { $0 == (4, 0) })
        #expect(track.scrolls == 5 && track.row == 9 && track.col == 0)
        // The terminal's default sixel mode (images at the cursor) is left alone.
        #expect(!String(decoding: written, as: UTF8.self).contains("?80"))
        region.wipe()
        track.feed(sink.take())
        #expect(track.row == 4 && region.rows == 0)
    }

    @Test func kittyPlacesOnceSwitchesFramesAndLeavesOneStillInPlace() {
        let sink = RecordingSink(cell: P.cell10x20)
        let region = InlineRegion(base: sink)
        let plan = OutputPlan.kitty(TerminalInfo(cell: P.cell10x20), .direct)
        let (preparer, makeOutput) = plan.build(background: .terminal)
        let output = makeOutput(nil, region, OutputPlan.CellSettings(mode: .truecolor))
        let layout = Self.layout(plan, rows: 3)
        var track = CursorTrack(rows: 20, row: 2)
        var kitty = MiniKitty()
        region.reserve(layout.rows)
        track.feed(sink.take())
        #expect(track.scrolls == 0 && track.row == 5)
        let frame = { (i: Int) in preparer.scale(solidCanvas(8, 8, i % 2 == 0 ? P.red : P.blue), index: i, to: layout.size) }
        for i in 0..<3 {
            output.show(frame(i))
            output.present(at: layout, status: nil)
        }
        var written = sink.take()
        track.feed(written); kitty.feed(written)
        // Placed once at the region's top (the line the prompt's cursor was on), then switched.
        #expect(track.images.first! == (2, 0))
        #expect(kitty.commands.first?["a"] == "T" && kitty.commands.first?["C"] == "1")
        #expect(kitty.commands.filter { $0["a"] == "T" }.count == 1)
        #expect(kitty.images.count == 1 && kitty.images.values.first!.current == 3)
        #expect(track.row == 5 && track.col == 0)
        output.keepInPlace()
        written = sink.take()
        let before = track.images.count
        track.feed(written); kitty.feed(written)
        #expect(track.errors.isEmpty && kitty.errors.isEmpty, "\(track.errors) \(kitty.errors)")
        // One still at the same place, cursor kept; the animation and its frames gone.
        #expect(track.images.count == before + 2 && track.images[before] == (2, 0))
        #expect(kitty.stills.count == 1 && kitty.images.isEmpty)
        #expect(kitty.commands.last?["a"] == "d")
        #expect(kitty.commands[kitty.commands.count - 2]["C"] == "1")
        #expect(track.row == 5 && track.col == 0)
    }
}
