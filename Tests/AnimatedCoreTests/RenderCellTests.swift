import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

func frame(_ w: Int, _ h: Int, _ px: [UInt8]) -> ScaledFrame {
    ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: px)
}

@Suite struct RenderCellTests {
    let D = CellColor.terminalDefault

    @Test func canonicalCellForms() {
        // Columns: (red over blue) (green over green) (transparent over red) (red over transparent)
        let px: [UInt8] = [255, 0, 0, 255,  0, 255, 0, 255,  9, 9, 9, 0,     255, 0, 0, 255,
                           0, 0, 255, 255,  0, 255, 0, 255,  255, 0, 0, 255, 7, 7, 7, 0]
        let g = CellGrid()
        CellRenderer(mode: .truecolor, background: .terminal).render(frame(4, 2, px), into: g)
        #expect(g.columns == 4 && g.rows == 1)
        #expect((0..<4).map { g.glyphs[$0] } == [CellGlyph.upper, .space, .lower, .upper].map(\.rawValue))
        #expect((0..<4).map { g.foregrounds[$0] } == [0xFF0000, 0x00FF00, 0xFF0000, 0xFF0000])
        #expect((0..<4).map { g.backgrounds[$0] } == [0x0000FF, 0x00FF00, D, D])
    }

    @Test func oddHeightLeavesTheLowerHalfOfTheLastRowTransparent() {
        let px: [UInt8] = [1, 2, 3, 255,  4, 5, 6, 255,  7, 8, 9, 255]
        let g = CellGrid()
        CellRenderer(mode: .truecolor, background: .terminal).render(frame(1, 3, px), into: g)
        #expect(g.rows == 2)
        #expect(g.glyphs[1] == CellGlyph.upper.rawValue && g.foregrounds[1] == 0x070809 && g.backgrounds[1] == D)
    }

    @Test func partialAlphaBlendsOverTheChosenBackground() {
        let px: [UInt8] = [255, 0, 0, 128,  0, 0, 0, 0]
        let g = CellGrid()
        CellRenderer(mode: .truecolor, background: .color(255, 255, 255)).render(frame(1, 2, px), into: g)
        // 255·128 + 255·127 = 255·255 → 255; 0·128 + 255·127 → 127.
        #expect(g.foregrounds[0] == 0xFF7F7F && g.backgrounds[0] == 0xFFFFFF)
        // Without a background, less than half opaque shows the terminal, the rest is opaque.
        CellRenderer(mode: .truecolor, background: .terminal).render(frame(1, 2, px), into: g)
        #expect(g.glyphs[0] == CellGlyph.upper.rawValue && g.foregrounds[0] == 0xFF0000 && g.backgrounds[0] == D)
    }

    @Test func checkerboardAlternatesEveryFourPixels() {
        let px = [UInt8](repeating: 0, count: 8 * 2 * 4)   // fully transparent 8×2
        let g = CellGrid()
        CellRenderer(mode: .truecolor, background: .checker).render(frame(8, 2, px), into: g)
        let light: UInt32 = 0x999999, dark: UInt32 = 0x666666
        #expect((0..<8).map { g.backgrounds[$0] } == [light, light, light, light, dark, dark, dark, dark])
        #expect(g.glyphs[0] == CellGlyph.space.rawValue)
    }

    @Test func paletteModesStoreIndices() {
        let px: [UInt8] = [95, 135, 175, 255,  128, 128, 128, 255]
        let g = CellGrid()
        CellRenderer(mode: .palette256, background: .terminal).render(frame(1, 2, px), into: g)
        #expect(g.foregrounds[0] == 67 && g.backgrounds[0] == 244)
    }
}
