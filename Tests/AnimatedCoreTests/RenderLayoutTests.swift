import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct RenderLayoutTests {
    @Test func wideVideoFitsTheWidthAndIsCentredVertically() {
        let l = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 120, rows: 40)
        #expect(l.size == RenderSize(width: 120, height: 68))   // 67.5 rounds up
        #expect(l.rows == 34 && l.column == 0 && l.row == 3)
    }

    @Test func tallImageFitsTheHeightAndIsCentredHorizontally() {
        let l = RenderLayout.compute(canvasWidth: 100, canvasHeight: 400, columns: 80, rows: 24)
        #expect(l.size == RenderSize(width: 12, height: 48))
        #expect(l.row == 0 && l.column == 34)
    }

    @Test func pixelArtIsEnlargedByTheLargestWholeFactorThatFits() {
        let l = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 80, rows: 24)
        #expect(l.size == RenderSize(width: 48, height: 48))   // 3×: 4× would need 64 pixel rows
        #expect(l.column == 16 && l.row == 0)
        // Fits once but not twice: shown at its own size, not stretched by a fraction.
        let m = RenderLayout.compute(canvasWidth: 60, canvasHeight: 30, columns: 80, rows: 24)
        #expect(m.size == RenderSize(width: 60, height: 30))
    }

    @Test func explicitScaleAndStretch() {
        let s = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 80, rows: 24, scale: 2)
        #expect(s.size == RenderSize(width: 32, height: 32))
        #expect(s.factor == 2)
        let tooBig = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 80, rows: 24, scale: 10)
        #expect(tooBig.size == RenderSize(width: 48, height: 48) && tooBig.factor == 3)
        let st = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 120, rows: 40, fit: .stretch)
        #expect(st.size == RenderSize(width: 120, height: 80) && st.row == 0 && st.column == 0)
    }

    @Test func scaleThatDoesNotFitUsesTheLargestWholeFactor() {
        // 70×40 pixels: a fraction would give 40×40 (2.5×); the largest whole factor is 2.
        let l = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 70, rows: 20, scale: 10)
        #expect(l.size == RenderSize(width: 32, height: 32) && l.factor == 2)
        #expect(l.row == 2 && l.column == 19)
        // Without --scale the same whole factor; a smaller --scale is kept.
        #expect(RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 70, rows: 20).factor == 2)
        #expect(RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 70, rows: 20, scale: 1).size
                == RenderSize(width: 16, height: 16))
        // An image larger than the box is still reduced (no whole factor fits), whatever --scale says.
        let big = RenderLayout.compute(canvasWidth: 200, canvasHeight: 100, columns: 80, rows: 24, scale: 3)
        #expect(big.size == RenderSize(width: 80, height: 40) && big.factor == nil)
        let st = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 70, rows: 20, fit: .stretch)
        #expect(st.factor == nil)
    }

    @Test func oddHeightCoversAPartialCellRow() {
        let l = RenderLayout.compute(canvasWidth: 5, canvasHeight: 3, columns: 5, rows: 2)
        #expect(l.size == RenderSize(width: 5, height: 3) && l.rows == 2)
    }
}

/// `--fill` and terminal scaling: the largest aspect-kept size in the box, what is rendered
/// versus what is shown, and HiDPI density.
@Suite struct RenderLayoutFillTests {
    let px = RenderSize(width: 10, height: 20)

    @Test func wideVideoFillsTheWidthOfTheBenchmarkWindow() {
        // 640×360 in 120×40 cells of 10×20 px (1200×800): 1200×675, 34 rows, centred.
        let l = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 120, rows: 40, fit: .fill, cell: px)
        #expect(l.size == RenderSize(width: 1200, height: 675) && l.shown == l.size)
        #expect(l.columns == 120 && l.rows == 34 && l.row == 3 && l.column == 0 && l.factor == nil)
        // The default stays the picture's own size (it fits once, not twice).
        let own = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 120, rows: 40, cell: px)
        #expect(own.size == RenderSize(width: 640, height: 360) && own.factor == 1)
    }

    @Test func tallImageFillsTheHeight() {
        let l = RenderLayout.compute(canvasWidth: 300, canvasHeight: 1000, columns: 120, rows: 40, fit: .fill, cell: px)
        #expect(l.size == RenderSize(width: 240, height: 800))
        #expect(l.row == 0 && l.columns == 24 && l.column == 48)
    }

    @Test func oddBoxesRoundTheFreeSideToTheNearestPixel() {
        // 3×2 into 7×3 half-block cells (7×6 pixels): width-limited, 7 × 2/3 = 4.67 → 5.
        let l = RenderLayout.compute(canvasWidth: 3, canvasHeight: 2, columns: 7, rows: 3, fit: .fill)
        #expect(l.size == RenderSize(width: 7, height: 5) && l.rows == 3 && l.row == 0)
        // Height-limited: 2×3 into 7×3 cells → 4×6.
        let t = RenderLayout.compute(canvasWidth: 2, canvasHeight: 3, columns: 7, rows: 3, fit: .fill)
        #expect(t.size == RenderSize(width: 4, height: 6) && t.column == 1)
        // Never beyond the box, whatever the rounding.
        for w in 1...13 { for h in 1...13 {
            let f = RenderLayout.compute(canvasWidth: w, canvasHeight: h, columns: 5, rows: 3, fit: .fill, cell: px)
            #expect(f.size.width <= 50 && f.size.height <= 60 && (f.size.width == 50 || f.size.height == 60))
        } }
    }

    @Test func pixelArtKeepsWholeFactorsUnlessFilled() {
        // 800×460 pixels: 28× (448) is the largest whole factor; filled, 460.
        let art = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 80, rows: 23, cell: px)
        #expect(art.size == RenderSize(width: 448, height: 448) && art.factor == 28)
        let filled = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 80, rows: 23, fit: .fill, cell: px)
        #expect(filled.size == RenderSize(width: 460, height: 460) && filled.factor == nil)
        // Whole factors are replicated here even where the terminal could scale (its filter blurs).
        let kitty = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 80, rows: 24, cell: px, terminalScales: true)
        #expect(kitty.size == kitty.shown && !kitty.terminalScales)
    }

    @Test func oneByOneFillsTheSmallerSideOfTheBox() {
        let l = RenderLayout.compute(canvasWidth: 1, canvasHeight: 1, columns: 120, rows: 40, fit: .fill, cell: px)
        #expect(l.size == RenderSize(width: 800, height: 800) && l.column == 20 && l.row == 0)
        let cells = RenderLayout.compute(canvasWidth: 1, canvasHeight: 1, columns: 1, rows: 1, fit: .fill)
        #expect(cells.size == RenderSize(width: 1, height: 1) && cells.rows == 1)
    }

    @Test func theTerminalEnlargesFromTheCanvasWhenItCan() {
        let l = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 120, rows: 40, fit: .fill,
                                     cell: px, terminalScales: true)
        #expect(l.size == RenderSize(width: 640, height: 360) && l.shown == RenderSize(width: 1200, height: 675))
        #expect(l.terminalScales && l.columns == 120 && l.rows == 34 && l.row == 3)
        // Width fills whole cells; the height, 33.75 cells, is rounded to 34 for kitty.
        #expect(KittyCells(l) == KittyCells(columns: 120, rows: 34))
        // A reduction to no less than half is the terminal's too (1280×720 shown at 1200×675)…
        let video = RenderLayout.compute(canvasWidth: 1280, canvasHeight: 720, columns: 120, rows: 40, fit: .fill,
                                         cell: px, terminalScales: true)
        #expect(video.size == RenderSize(width: 1280, height: 720) && video.shown == RenderSize(width: 1200, height: 675))
        #expect(KittyCells(video) == KittyCells(columns: 120, rows: 34))
        let half = RenderLayout.compute(canvasWidth: 2400, canvasHeight: 1200, columns: 120, rows: 40, fit: .fill,
                                        cell: px, terminalScales: true)
        #expect(half.size == RenderSize(width: 2400, height: 1200) && half.shown == RenderSize(width: 1200, height: 600))
        // …a larger one is done here (the area average), the terminal shows it 1:1.
        let big = RenderLayout.compute(canvasWidth: 2402, canvasHeight: 1201, columns: 120, rows: 40, fit: .fill,
                                       cell: px, terminalScales: true)
        #expect(big.size == RenderSize(width: 1200, height: 600) && !big.terminalScales && KittyCells(big) == nil)
        // Stretched: both sides given.
        let st = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 120, rows: 40, fit: .stretch,
                                      cell: px, terminalScales: true)
        #expect(KittyCells(st) == KittyCells(columns: 120, rows: 40) && st.size == RenderSize(width: 640, height: 360))
    }

    @Test func hiDPICellsCountTheOwnSizeInLogicalPixels() {
        // 20×40-pixel cells (a 2× screen): a 320×180 picture is enlarged 3× in logical pixels
        // (1920×1080 device pixels), covering the same cells as on a 1× screen with 10×20 cells.
        let hi = RenderSize(width: 20, height: 40)
        #expect(RenderLayout.density(cell: hi) == 2 && RenderLayout.density(cell: px) == 1)
        let l = RenderLayout.compute(canvasWidth: 320, canvasHeight: 180, columns: 120, rows: 40, cell: hi)
        let lo = RenderLayout.compute(canvasWidth: 320, canvasHeight: 180, columns: 120, rows: 40, cell: px)
        #expect(l.size == RenderSize(width: 1920, height: 1080) && l.factor == 3)
        #expect(lo.factor == 3 && l.columns == lo.columns && l.rows == lo.rows)
        // --scale counts logical pixels too.
        let s = RenderLayout.compute(canvasWidth: 320, canvasHeight: 180, columns: 120, rows: 40, scale: 1, cell: hi)
        #expect(s.size == RenderSize(width: 640, height: 360) && s.factor == 1)
        // Too large for 2× but not for 1×: filled to the box rather than halved.
        let v = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 60, rows: 20, cell: hi, terminalScales: true)
        #expect(v.shown == RenderSize(width: 1200, height: 675) && v.size == RenderSize(width: 640, height: 360))
    }
}
