import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct SpriteGridTests {
    @Test func plainGridCutsEqualCells() throws {
        let g = SpriteGrid(columns: 8, rows: 4)
        let cells = try g.cells(sheetWidth: 256, sheetHeight: 128)
        #expect(cells.count == 32)
        #expect(cells[0] == FrameRect(x: 0, y: 0, width: 32, height: 32))
        #expect(cells[7] == FrameRect(x: 224, y: 0, width: 32, height: 32))
        #expect(cells[8] == FrameRect(x: 0, y: 32, width: 32, height: 32))
        #expect(cells[31] == FrameRect(x: 224, y: 96, width: 32, height: 32))
    }

    @Test func marginAndSpacing() throws {
        // 32 = 2×1 margin + 4×6 cells + 3×2 spacing; 21 = 2×1 + 3×5 + 2×2.
        let g = SpriteGrid(columns: 4, rows: 3, margin: 1, spacing: 2)
        let size = try g.cellSize(sheetWidth: 32, sheetHeight: 21)
        #expect(size.width == 6 && size.height == 5)
        let cells = try g.cells(sheetWidth: 32, sheetHeight: 21)
        #expect(cells[0] == FrameRect(x: 1, y: 1, width: 6, height: 5))
        #expect(cells[5] == FrameRect(x: 9, y: 8, width: 6, height: 5))
        #expect(cells[11] == FrameRect(x: 25, y: 15, width: 6, height: 5))
        // The last cell ends exactly at the margin.
        #expect(cells[11].x + cells[11].width + 1 == 32 && cells[11].y + cells[11].height + 1 == 21)
    }

    @Test func nonDividingSizeNamesTheNumbers() {
        #expect(throws: AnimatedError.invalid("sprite grid: sheet width 100 does not divide into 8 columns (100 / 8 leaves 4 px)")) {
            try SpriteGrid(columns: 8, rows: 4).cellSize(sheetWidth: 100, sheetHeight: 128)
        }
        do {
            _ = try SpriteGrid(columns: 4, rows: 3, margin: 1, spacing: 2).cellSize(sheetWidth: 32, sheetHeight: 22)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("sheet height 22 minus 2×1 px margin and 2×2 px spacing leaves 16 px"))
            #expect(error.description.contains("3 rows"))
        }
    }

    @Test func tooSmallSheet() {
        do {
            _ = try SpriteGrid(columns: 4, rows: 1, margin: 3).cellSize(sheetWidth: 8, sheetHeight: 8)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("leaves 2 px"))
            #expect(error.description.contains("too small for 4 columns"))
        }
    }

    @Test func hostileGridsAreErrorsNotCrashes() {
        #expect(throws: AnimatedError.self) { try SpriteGrid(columns: 0, rows: 4).cellSize(sheetWidth: 10, sheetHeight: 10) }
        #expect(throws: AnimatedError.self) { try SpriteGrid(columns: 1 << 40, rows: 1 << 40).cells(sheetWidth: 10, sheetHeight: 10) }
        #expect(throws: AnimatedError.self) { try SpriteGrid(columns: 2, rows: 2, margin: Int.max).cellSize(sheetWidth: 10, sheetHeight: 10) }
        #expect(throws: AnimatedError.self) { try SpriteGrid(columns: 2, rows: 2, spacing: -3).cellSize(sheetWidth: 10, sheetHeight: 10) }
    }

    @Test func parseSize() {
        #expect(parseWxH("8x4")! == (8, 4))
        #expect(parseWxH("80X24")! == (80, 24))
        for bad in ["", "8", "8x", "x4", "0x4", "8x0", "-1x4", "8x4x2", "8 x 4", "ax4"] {
            #expect(parseWxH(bad) == nil, "\(bad)")
        }
    }

    @Test func frameLimitKeepsTheFirstCells() throws {
        let spec = SpriteSheetSpec(layout: .grid(SpriteGrid(columns: 8, rows: 4)), frameLimit: 29)
        let layout = try spec.resolve(sheetWidth: 256, sheetHeight: 128)
        #expect(layout.frames.count == 29)
        #expect(layout.frames.last?.sheetRect == FrameRect(x: 128, y: 96, width: 32, height: 32))
        #expect(layout.width == 32 && layout.height == 32)
        let tooMany = SpriteSheetSpec(layout: .grid(SpriteGrid(columns: 8, rows: 4)), frameLimit: 33)
        #expect(throws: AnimatedError.invalid("33 frames asked for, but there are 32 cells in the 8x4 grid")) {
            try tooMany.resolve(sheetWidth: 256, sheetHeight: 128)
        }
    }

    @Test func timing() throws {
        let g = SpriteSheetSpec.Layout.grid(SpriteGrid(columns: 2, rows: 1))
        #expect(try SpriteSheetSpec(layout: g).resolve(sheetWidth: 4, sheetHeight: 2).frames.map(\.delayMs) == [100, 100])
        #expect(try SpriteSheetSpec(layout: g, delayMs: 40).resolve(sheetWidth: 4, sheetHeight: 2).frames.map(\.delayMs) == [40, 40])
    }
}
