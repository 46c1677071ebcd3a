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
