import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal
import AnimatedTestSupport

/// The four outputs built from their `OutputPlan`, writing to a recording sink; what they wrote
/// is read back by emulating the terminal (MiniTerminal for cells, MiniKitty, the sixel and
/// iTerm2 test decoders), never by comparing strings.
@Suite struct OutputPlanTests {
    static let red: (UInt8, UInt8, UInt8, UInt8) = (220, 30, 40, 255)
    static let blue: (UInt8, UInt8, UInt8, UInt8) = (20, 40, 230, 255)
    static let cell10x20 = RenderSize(width: 10, height: 20)

    /// The output of `plan` on `sink`, its text screen (rows × columns) on the same sink, and the
    /// frames of two solid colours it prepares.
    static func make(_ plan: OutputPlan, sink: RecordingSink, rows: Int = 12, columns: Int = 30)
        -> (output: any FrameOutput, screen: SGRCellScreen, frame: (Int, RenderSize) -> ScaledFrame) {
        let (preparer, makeOutput) = plan.build(background: .terminal)
        let screen = SGRCellScreen(sink: sink, rows: rows, columns: columns, mode: .truecolor)
        let output = makeOutput(screen, sink, OutputPlan.CellSettings(mode: .truecolor))
        let frame = { (index: Int, size: RenderSize) in
            preparer.scale(solidCanvas(8, 8, index % 2 == 0 ? red : blue), index: index, to: size)
        }
        return (output, screen, frame)
    }

    static func layout(_ plan: OutputPlan, rows: Int = 11, columns: Int = 30) -> RenderLayout {
        RenderLayout.compute(canvasWidth: 8, canvasHeight: 8, columns: columns, rows: rows, cell: plan.cell)
    }

    static func rgb(_ c: (UInt8, UInt8, UInt8, UInt8)) -> UInt32 { UInt32(c.0) << 16 | UInt32(c.1) << 8 | UInt32(c.2) }

    // MARK: - Cells

    @Test func cellsDrawTheFrameAndTheStatusLineAndPrintTheLastFrame() {
        let sink = RecordingSink()
        let plan = OutputPlan.cells(.half)
        let (output, _, frame) = Self.make(plan, sink: sink)
        let layout = Self.layout(plan)
        var term = MiniTerminal(cols: 30, rows: 12)
        output.show(frame(0, layout.size))
        output.present(at: layout, status: " playing")
        term.feed(sink.take())
        #expect(term.errors.isEmpty, "\(term.errors)")
        let r = layout.row, c = layout.column
        #expect(term.top[r * 30 + c] == Self.rgb(Self.red) && term.bottom[(r + layout.rows - 1) * 30 + c] == Self.rgb(Self.red))
        #expect(term.line(11).hasPrefix(" playing"))
        // The next frame rewrites the image cells only.
        output.show(frame(1, layout.size))
        output.present(at: layout, status: " playing")
        term.feed(sink.take())
        #expect(term.top[r * 30 + c] == Self.rgb(Self.blue) && term.line(11).hasPrefix(" playing"))
        // Exit: the last frame printed at the cursor, as lines.
        output.leave()
        output.printLast()
        var printed = MiniTerminal(cols: 30, rows: layout.rows + 1)
        printed.feed(sink.take())
        #expect(printed.errors.isEmpty, "\(printed.errors)")
        #expect((0..<layout.rows).allSatisfy { printed.top[$0 * 30] == Self.rgb(Self.blue) && printed.bottom[$0 * 30] == Self.rgb(Self.blue) })
        #expect(printed.row == layout.rows && printed.col == 0)
    }

    @Test func cellsAfterAResizeRedrawEverythingAndCentreAFrameOfTheOldSize() {
        let sink = RecordingSink()
        let plan = OutputPlan.cells(.half)
        let (output, screen, frame) = Self.make(plan, sink: sink)
        let before = Self.layout(plan)
        output.show(frame(0, before.size))
        output.present(at: before, status: nil)
        _ = sink.take()
        // The window grows to 40×20: a frame of the old size arrives before one of the new.
        screen.resize(rows: 20, columns: 40)
        output.invalidate()
        let after = Self.layout(plan, rows: 20, columns: 40)
        #expect(after.size != before.size)
        output.present(at: after, status: nil)
        var term = MiniTerminal(cols: 40, rows: 20)
        term.feed(sink.take())
        #expect(term.errors.isEmpty, "\(term.errors)")
        let rows = before.rows, cols = before.size.width
        let top = (20 - rows) / 2, left = (40 - cols) / 2
        #expect(term.top[top * 40 + left] == Self.rgb(Self.red))
        #expect(term.top[(top - 1) * 40 + left] == CellColor.terminalDefault)
        #expect(term.top[top * 40 + left + cols] == CellColor.terminalDefault)
    }

    // MARK: - kitty

    @Test func kittyUploadsSwitchesResizesAndLeavesTheLastFrameAsAStill() throws {
        let sink = RecordingSink(cell: Self.cell10x20)
        let plan = OutputPlan.kitty(TerminalInfo(cell: Self.cell10x20), .direct)
        let (output, _, frame) = Self.make(plan, sink: sink)
        let layout = Self.layout(plan)
        var kitty = MiniKitty()
        for i in [0, 1, 0] {
            output.show(frame(i, layout.size))
            output.present(at: layout, status: nil)
            kitty.feed(sink.take())
        }
        #expect(kitty.errors.isEmpty, "\(kitty.errors)")
        #expect(kitty.images.count == 1)
        let id = try #require(kitty.images.keys.first)
        #expect(kitty.images[id]!.frames.count == 2)             // two frames uploaded, then switched back
        #expect(kitty.shown(id) == solidPixels(layout.size, Self.red))
        // The window's cells become larger: the layout is redone, the image built again.
        sink.windowCellSize = RenderSize(width: 12, height: 24)
        #expect(output.syncCellSize() && output.cell == RenderSize(width: 12, height: 24))
        #expect(!output.syncCellSize())
        output.invalidate()
        let bigger = RenderLayout.compute(canvasWidth: 8, canvasHeight: 8, columns: 30, rows: 11, cell: output.cell)
        output.show(frame(1, bigger.size))
        output.present(at: bigger, status: nil)
        kitty.feed(sink.take())
        #expect(kitty.errors.isEmpty, "\(kitty.errors)")
        #expect(kitty.shown(id) == solidPixels(bigger.size, Self.blue) && kitty.images[id]!.frames.count == 1)
        // Exit: the image goes, the last frame is printed as a still.
        output.leave()
        output.printLast()
        kitty.feed(sink.take())
        #expect(kitty.images.isEmpty && kitty.stills == [solidPixels(bigger.size, Self.blue)])
        #expect(kitty.errors.isEmpty, "\(kitty.errors)")
    }

    @Test func kittyTakesItsErrorRepliesButNotLateProbeAnswers() {
        let sink = RecordingSink(cell: Self.cell10x20)
        let (output, _, _) = Self.make(.kitty(TerminalInfo(cell: Self.cell10x20), .direct), sink: sink)
        output.accept(replies: [(KittyMedium.fileProbeID, "EINVAL"), (nil, "OK")])
        #expect(output.failure == nil)
        output.accept(replies: [(7, "OK"), (7, "ENOSPC:no room"), (7, "EINVAL")])
        #expect(output.failure == "ENOSPC:no room")
    }

    @Test func kittyInsideTmuxWrapsEveryCommand() {
        let sink = RecordingSink(cell: Self.cell10x20)
        let plan = OutputPlan.kitty(TerminalInfo(cell: Self.cell10x20, tmuxPassthrough: true), .direct)
        let (output, _, frame) = Self.make(plan, sink: sink)
        let layout = Self.layout(plan)
        output.show(frame(0, layout.size))
        output.present(at: layout, status: nil)
        var kitty = MiniKitty()
        let bytes = sink.take()
        kitty.feed(bytes)
        #expect(kitty.errors.isEmpty && kitty.images.count == 1)
        // Every APC is inside passthrough (its ESC doubled).
        #expect(bytes.indices.dropLast().contains { bytes[$0] == 0x1B && bytes[$0 + 1] == 0x5F })
        #expect(!bytes.indices.dropLast().contains { bytes[$0] == 0x1B && bytes[$0 + 1] == 0x5F && ($0 == 0 || bytes[$0 - 1] != 0x1B) })
    }

    /// The pixels to cells fallback: what the loop does when kitty fails (its output leaves,
    /// the cells output of the same screen takes over at the cells' own layout).
    @Test func aRefusedPixelOutputFallsBackToCells() {
        let sink = RecordingSink(cell: Self.cell10x20)
        let plan = OutputPlan.kitty(TerminalInfo(cell: Self.cell10x20), .direct)
        #expect(plan.isPixels && !OutputPlan.cells(.half).isPixels)
        let (kittyOutput, screen, frame) = Self.make(plan, sink: sink)
        let layout = Self.layout(plan)
        kittyOutput.show(frame(0, layout.size))
        kittyOutput.present(at: layout, status: nil)
        kittyOutput.accept(replies: [(7, "ENOSPC:no room")])
        #expect(kittyOutput.failure != nil)
        kittyOutput.leave()
        var kitty = MiniKitty()
        kitty.feed(sink.take())
        #expect(kitty.images.isEmpty)
        let cells = OutputPlan.cells(.half).build(background: .terminal)
        let fallback = cells.output(screen, sink, OutputPlan.CellSettings(mode: .truecolor))
        fallback.invalidate()
        let cellLayout = Self.layout(.cells(.half))
        fallback.show(cells.preparer.scale(solidCanvas(8, 8, Self.red), index: 0, to: cellLayout.size))
        fallback.present(at: cellLayout, status: nil)
        var term = MiniTerminal(cols: 30, rows: 12)
        term.feed(sink.take())
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(term.top[cellLayout.row * 30 + cellLayout.column] == Self.rgb(Self.red))
    }

    // MARK: - sixel and iTerm2

    @Test func sixelDrawsEachFrameOnceSkipsWhenBusyAndPrintsTheLast() throws {
        let sink = RecordingSink(cell: Self.cell10x20)
        let plan = OutputPlan.sixel(TerminalInfo(cell: Self.cell10x20, colorRegisters: 16))
        #expect(plan.needsSpareRow)
        let (output, _, frame) = Self.make(plan, sink: sink)
        let layout = Self.layout(plan)
        output.show(frame(0, layout.size))
        output.present(at: layout, status: nil)
        let image = try SixelTestImage.decode(dcs(sink.take()))
        #expect(image.width == layout.size.width && image.height == layout.size.height)
        #expect(image.pixels.allSatisfy { $0.map { near($0, Self.red) } ?? false })
        output.present(at: layout, status: nil)
        #expect(sink.take().isEmpty)                             // nothing new to draw
        sink.isWritable = false
        output.show(frame(1, layout.size))
        output.present(at: layout, status: nil)
        #expect(sink.take().isEmpty && output.statusNote == "sixel: 1 skipped (terminal busy)")
        sink.isWritable = true
        output.printLast()
        let last = try SixelTestImage.decode(dcs(sink.take()))
        #expect(last.pixels.allSatisfy { $0.map { near($0, Self.blue) } ?? false })
    }

    @Test func sixelInsideTmuxGoesThroughPassthrough() throws {
        let sink = RecordingSink(cell: Self.cell10x20)
        let plan = OutputPlan.sixel(TerminalInfo(cell: Self.cell10x20, tmuxPassthrough: true))
        let (output, _, frame) = Self.make(plan, sink: sink)
        let layout = Self.layout(plan)
        output.show(frame(0, layout.size))
        output.printLast()
        let bytes = sink.take()
        #expect(bytes.starts(with: [0x1B, 0x50] + Array("tmux;".utf8)))
        let image = try SixelTestImage.decode(dcs(MiniKitty().unwrapTmux(bytes)))
        #expect(image.width == layout.size.width)
    }

    @Test func iTerm2DrawsTheFrameInItsCellsAndPrintsTheLast() throws {
        let sink = RecordingSink(cell: Self.cell10x20)
        let plan = OutputPlan.iterm2(TerminalInfo(cell: Self.cell10x20))
        let (output, _, frame) = Self.make(plan, sink: sink)
        let layout = Self.layout(plan)
        output.show(frame(0, layout.size))
        output.present(at: layout, status: nil)
        let shown = try ITermTestImage.decode(osc1337(sink.take()))
        #expect(shown.arguments["width"] == String(layout.columns) && shown.arguments["height"] == String(layout.rows))
        #expect(shown.arguments["doNotMoveCursor"] == "1")
        #expect(shown.rgba == solidPixels(layout.size, Self.red))
        output.show(frame(1, layout.size))
        output.printLast()
        let printed = try ITermTestImage.decode(osc1337(sink.take()))
        #expect(printed.arguments["doNotMoveCursor"] != "1" && printed.rgba == solidPixels(layout.size, Self.blue))
    }

    // MARK: - The plan

    @Test func thePlanIsDecidedOnceWithOneWarning() {
        var report = TerminalReport()
        report.answeredDA1 = true
        report.kittyReplies[TerminalQueries.kittyQueryID] = "OK"
        func decide(_ r: GraphicsRequest, _ report: TerminalReport, env: [String: String] = [:], window: RenderSize? = nil,
                    passthrough: Bool = false) -> (plan: OutputPlan, decision: GraphicsPolicy.Decision, warning: String?) {
            OutputPlan.decide(r, report: report, env: env, tmuxAllowsPassthrough: { passthrough }, windowCell: window,
                              symbols: .sextant)
        }
        let kitty = decide(.auto, report, window: Self.cell10x20)
        #expect(kitty.plan == .kitty(TerminalInfo(cell: Self.cell10x20), .direct) && kitty.warning == nil)
        // No cell size anywhere: cells, one warning.
        let blind = decide(.auto, report)
        #expect(blind.plan == .cells(.sextant) && blind.warning == "the terminal reports no cell size in pixels; using cells")
        #expect(decide(.forced(.sixel), TerminalReport()).warning == "the terminal does not report its cell size in pixels; using cells")
        // The reported cell size, registers clamped, tmux passthrough in the terminal info.
        var sixel = TerminalReport()
        sixel.answeredDA1 = true; sixel.da1Attributes = [4]; sixel.colorRegisters = 4096
        sixel.reportedCellPixels = PixelSize(width: 9, height: 18)
        let viaTmux = decide(.auto, sixel, env: ["TMUX": "x"], passthrough: true)
        #expect(viaTmux.plan == .sixel(TerminalInfo(cell: RenderSize(width: 9, height: 18), reportedCell: RenderSize(width: 9, height: 18),
                                                    tmuxPassthrough: true, colorRegisters: 256)))
        #expect(decide(.auto, sixel, env: ["TMUX": "x"]).plan == .cells(.sextant))
        #expect(decide(.forced(.cells), report, window: Self.cell10x20).plan == .cells(.sextant))
    }

    @Test func aStillIsFrameZeroPrintedByThePlansOutput() throws {
        // The CLI's still: no screen, show frame 0, printLast.
        for plan in [OutputPlan.cells(.half), .kitty(TerminalInfo(cell: Self.cell10x20), .direct),
                     .sixel(TerminalInfo(cell: Self.cell10x20)), .iterm2(TerminalInfo(cell: Self.cell10x20))] {
            let sink = RecordingSink(cell: Self.cell10x20)
            let (preparer, makeOutput) = plan.build(background: .terminal)
            let output = makeOutput(nil, sink, OutputPlan.CellSettings(mode: .truecolor))
            let layout = Self.layout(plan)
            output.show(preparer.scale(solidCanvas(8, 8, Self.red), index: 0, to: layout.size))
            output.printLast()
            let bytes = sink.take()
            switch plan {
            case .cells:
                var term = MiniTerminal(cols: 30, rows: layout.rows + 1)
                term.feed(bytes)
                #expect(term.errors.isEmpty && term.top[0] == Self.rgb(Self.red))
            case .kitty:
                var kitty = MiniKitty()
                kitty.feed(bytes)
                #expect(kitty.stills == [solidPixels(layout.size, Self.red)] && kitty.errors.isEmpty)
            case .sixel:
                #expect(try SixelTestImage.decode(dcs(bytes)).width == layout.size.width)
            case .iterm2:
                #expect(try ITermTestImage.decode(osc1337(bytes)).rgba == solidPixels(layout.size, Self.red))
            }
        }
    }
}

/// A sixel colour (registers are in percent: ±1.3 levels) close to `c`.
func near(_ p: (UInt8, UInt8, UInt8), _ c: (UInt8, UInt8, UInt8, UInt8)) -> Bool {
    abs(Int(p.0) - Int(c.0)) <= 2 && abs(Int(p.1) - Int(c.1)) <= 2 && abs(Int(p.2) - Int(c.2)) <= 2
}

/// RGBA of a solid `size` image.
func solidPixels(_ size: RenderSize, _ c: (UInt8, UInt8, UInt8, UInt8)) -> [UInt8] {
    Array([[c.0, c.1, c.2, c.3]].repeated(size.width * size.height).joined())
}

extension Array {
    func repeated(_ n: Int) -> [Element] { (0..<n).flatMap { _ in self } }
}

/// The DCS … ST in `bytes` (sixel), from its ESC P.
func dcs(_ bytes: [UInt8]) -> [UInt8] {
    guard let i = (0..<max(0, bytes.count - 1)).first(where: { bytes[$0] == 0x1B && bytes[$0 + 1] == 0x50 }) else { return [] }
    return Array(bytes[i...])
}

/// The OSC 1337 … BEL in `bytes` (iTerm2).
func osc1337(_ bytes: [UInt8]) -> [UInt8] {
    let start = Array("\u{1B}]1337;".utf8)
    guard let i = (0..<bytes.count).first(where: { bytes[$0...].starts(with: start) }),
          let end = bytes[i...].firstIndex(of: 0x07) else { return [] }
    return Array(bytes[i...end])
}
