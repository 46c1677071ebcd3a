import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal
import AnimatedTestSupport

/// `RenderLayout.compute` within the terminal's largest picture (`maxPixels`: xterm's
/// `maxGraphicSize`, 1000x1000 by default, which drops a larger sixel image whole).
@Suite struct RenderLayoutLimitTests {
    /// xterm's default font: 6x13-pixel cells; 200x60 of them is a 1200x780 window.
    static let xtermCell = RenderSize(width: 6, height: 13)
    static let xtermMax = RenderSize(width: 1000, height: 1000)

    /// Boxes from outside (COLUMNS and LINES, fzf's preview size, `--size`) may be anything:
    /// the picture stays within `mostPixels`, its aspect kept, and nothing overflows (a box of
    /// Int.max columns trapped; 99999999 × 99999999 cells asked for 40 PB).
    @Test(arguments: [(Int.max, 10), (99_999_999, 99_999_999), (Int.max, Int.max), (100_000, 100_000)])
    func hugeBoxesGiveABoundedPicture(_ columns: Int, _ rows: Int) {
        for fit in [FitMode.fit, .fill, .stretch] {
            for cell in [RenderLayout.halfBlockCell, RenderSize(width: 10, height: 20), RenderSize(width: Int.max, height: Int.max)] {
                let l = RenderLayout.compute(canvasWidth: 96, canvasHeight: 64, columns: columns, rows: rows, fit: fit, cell: cell)
                #expect(l.size.width * l.size.height <= RenderLayout.mostPixels, "\(columns)x\(rows) \(fit) \(cell): \(l.size)")
                #expect(l.size.width >= 1 && l.size.height >= 1)
                if fit == .fill && rows == 10 && cell == RenderLayout.halfBlockCell {
                    // 10 half-block rows, 20 pixels: the picture as tall as that, 3:2 kept.
                    #expect(l.size == RenderSize(width: 30, height: 20))
                }
                if fit == .fill && rows >= 1000 {
                    let aspect = Double(l.size.width) / Double(l.size.height)
                    #expect(abs(aspect - 1.5) < 0.01, "\(l.size)")
                }
            }
        }
    }

    @Test func aFilledVideoKeepsWithinTheLimitAspectKeptAndCentred() {
        let l = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 200, rows: 60, fit: .fill,
                                     cell: Self.xtermCell, maxPixels: Self.xtermMax)
        // 1000 wide; 1000 × 360/640 = 562.5, rounded to the nearest pixel.
        #expect(l.size == RenderSize(width: 1000, height: 563) && l.shown == l.size)
        // 167 columns and 44 rows, centred in the 200x60 box.
        #expect(l.columns == 167 && l.rows == 44 && l.column == 16 && l.row == 8)
        let free = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 200, rows: 60, fit: .fill,
                                        cell: Self.xtermCell)
        #expect(free.size == RenderSize(width: 1200, height: 675))
    }

    @Test func pixelArtKeepsTheLargestWholeFactorWithinTheLimit() {
        // 64x32 in 1200x780: 18x (1152x576) without a limit; within 1000 pixels, 15x.
        let free = RenderLayout.compute(canvasWidth: 64, canvasHeight: 32, columns: 200, rows: 60, cell: Self.xtermCell)
        #expect(free.factor == 18 && free.size == RenderSize(width: 1152, height: 576))
        let l = RenderLayout.compute(canvasWidth: 64, canvasHeight: 32, columns: 200, rows: 60, cell: Self.xtermCell,
                                     maxPixels: Self.xtermMax)
        #expect(l.factor == 15 && l.size == RenderSize(width: 960, height: 480))
        // --scale larger than the limit allows: the largest whole factor that fits.
        let asked = RenderLayout.compute(canvasWidth: 64, canvasHeight: 32, columns: 200, rows: 60, scale: 20,
                                         cell: Self.xtermCell, maxPixels: Self.xtermMax)
        #expect(asked.factor == 15 && asked.size == l.size)
        // 2x screens count whole factors in logical pixels: 100x50 at 5x is 1000x500 device pixels.
        let hi = RenderLayout.compute(canvasWidth: 100, canvasHeight: 50, columns: 100, rows: 40,
                                      cell: RenderSize(width: 16, height: 32), maxPixels: Self.xtermMax)
        #expect(hi.factor == 5 && hi.size == RenderSize(width: 1000, height: 500))
    }

    @Test func aPictureLargerThanTheLimitAtItsOwnSizeIsReduced() {
        // 1280x720 fits a 3000x2000 window twice over, but not the limit even once.
        let l = RenderLayout.compute(canvasWidth: 1280, canvasHeight: 720, columns: 300, rows: 100,
                                     cell: RenderSize(width: 10, height: 20), maxPixels: Self.xtermMax)
        #expect(l.factor == nil && l.size == RenderSize(width: 1000, height: 563))
    }

    @Test func stretchKeepsTheBoxsShapeWithinTheLimit() {
        // The 1200x780 box reduced to 1000 wide: 780 × 1000/1200 = 650.
        let l = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 200, rows: 60, fit: .stretch,
                                     cell: Self.xtermCell, maxPixels: Self.xtermMax)
        #expect(l.size == RenderSize(width: 1000, height: 650) && l.column == 16 && l.row == 5)
    }

    @Test func oddSizesStayWithinTheLimitWithTheirAspect() {
        // 1757x1215 box (251x81 cells of 7x15), a limit of odd sides.
        let cell = RenderSize(width: 7, height: 15), limit = RenderSize(width: 1001, height: 999)
        let a = RenderLayout.compute(canvasWidth: 101, canvasHeight: 37, columns: 251, rows: 81, fit: .fill,
                                     cell: cell, maxPixels: limit)
        #expect(a.size == RenderSize(width: 1001, height: 367))     // 366.7
        let b = RenderLayout.compute(canvasWidth: 37, canvasHeight: 101, columns: 251, rows: 81, fit: .fill,
                                     cell: cell, maxPixels: limit)
        #expect(b.size == RenderSize(width: 366, height: 999))      // 365.97
        // Every canvas, box and mode: within the limit and the box, the aspect within half a pixel.
        for (cw, ch) in [(1, 1), (101, 37), (37, 101), (640, 360), (1280, 720), (7, 1000), (333, 111)] {
            for (cols, rows) in [(251, 81), (80, 24), (1, 1), (300, 3)] {
                for m in [RenderSize(width: 1001, height: 999), RenderSize(width: 999, height: 1001), RenderSize(width: 13, height: 7)] {
                    for fit in FitMode.allCases {
                        let l = RenderLayout.compute(canvasWidth: cw, canvasHeight: ch, columns: cols, rows: rows, fit: fit,
                                                     cell: cell, maxPixels: m)
                        let box = (cols * cell.width, rows * cell.height)
                        #expect(l.size.width <= m.width && l.size.height <= m.height, "\(cw)x\(ch) \(cols)x\(rows) \(m) \(fit): \(l)")
                        #expect(l.size.width <= box.0 && l.size.height <= box.1, "\(cw)x\(ch) \(cols)x\(rows) \(m) \(fit): \(l)")
                        #expect(l.row >= 0 && l.column >= 0 && l.row + l.rows <= rows && l.column + l.columns <= cols)
                        if fit != .stretch && l.size.width > 1 && l.size.height > 1 {
                            let off = abs(l.size.height * cw - l.size.width * ch)
                            #expect(2 * off <= max(cw, ch), "\(cw)x\(ch) \(cols)x\(rows) \(m) \(fit): \(l)")
                        }
                    }
                }
            }
        }
    }

    @Test func aLimitTheBoxFitsInChangesNothing() {
        // foot and WezTerm answer limits far beyond the window; a huge (hostile) answer is clamped
        // to 2^30 by the parser.
        for m in [RenderSize(width: 10000, height: 10000), RenderSize(width: 1200, height: 780), RenderSize(width: 1 << 30, height: 1 << 30)] {
            for fit in FitMode.allCases {
                for (cw, ch) in [(640, 360), (64, 32), (1280, 720)] {
                    let free = RenderLayout.compute(canvasWidth: cw, canvasHeight: ch, columns: 200, rows: 60, fit: fit,
                                                    cell: Self.xtermCell)
                    let l = RenderLayout.compute(canvasWidth: cw, canvasHeight: ch, columns: 200, rows: 60, fit: fit,
                                                 cell: Self.xtermCell, maxPixels: m)
                    #expect(l == free, "\(m) \(fit) \(cw)x\(ch)")
                }
            }
        }
    }

    @Test func aTinyLimitGivesATinyPictureNeverNone() {
        let l = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 200, rows: 60, fit: .fill,
                                     cell: Self.xtermCell, maxPixels: RenderSize(width: 1, height: 1))
        #expect(l.size == RenderSize(width: 1, height: 1) && l.rows == 1 && l.columns == 1)
    }

    @Test func theTerminalScalesOnlyFromACanvasWithinTheLimit() {
        let px = RenderSize(width: 10, height: 20)
        // Without a limit kitty would get the 1280x720 canvas to show at 1200x675…
        let free = RenderLayout.compute(canvasWidth: 1280, canvasHeight: 720, columns: 120, rows: 40, fit: .fill,
                                        cell: px, terminalScales: true)
        #expect(free.size == RenderSize(width: 1280, height: 720))
        // …a terminal that takes at most 1100 pixels gets the picture reduced here, shown 1:1.
        let l = RenderLayout.compute(canvasWidth: 1280, canvasHeight: 720, columns: 120, rows: 40, fit: .fill,
                                     cell: px, terminalScales: true, maxPixels: RenderSize(width: 1100, height: 1100))
        #expect(l.size == RenderSize(width: 1100, height: 619) && !l.terminalScales)
        // A canvas within the limit is still the terminal's to enlarge.
        let small = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 120, rows: 40, fit: .fill,
                                         cell: px, terminalScales: true, maxPixels: RenderSize(width: 1100, height: 1100))
        #expect(small.size == RenderSize(width: 640, height: 360) && small.shown == RenderSize(width: 1100, height: 619))
    }

    @Test func theSixelOutputWritesAnImageWithinXtermsLimit() throws {
        // The xterm answers through the plan to the bytes written, read back by the test decoder.
        var report = TerminalReport()
        var parser = TerminalReplyParser()
        for e in parser.feed(Array(TerminalSixelMaxTests.xterm.utf8)) { report.apply(e) }
        report.reportedCellPixels = PixelSize(width: 6, height: 13)
        let plan = OutputPlan.decide(.forced(.sixel), report: report, env: [:], tmuxAllowsPassthrough: { false },
                                     windowCell: nil, symbols: .half, screen: (200, 60)).plan
        let layout = RenderLayout.compute(canvasWidth: 64, canvasHeight: 36, columns: 200, rows: 59, fit: .fill,
                                          cell: plan.cell, maxPixels: plan.maxPicture)
        let sink = RecordingSink(cell: plan.cell)
        let (preparer, makeOutput) = plan.build(background: .terminal)
        let output = makeOutput(nil, sink, OutputPlan.CellSettings(mode: .truecolor))
        output.show(preparer.scale(solidCanvas(64, 36, (200, 40, 40, 255)), index: 0, to: layout.size))
        output.printLast()
        let image = try SixelTestImage.decode(dcs(sink.take()))
        #expect(image.width == 1000 && image.height == 563)
        #expect(image.pixels.allSatisfy { $0 != nil })
    }
}
