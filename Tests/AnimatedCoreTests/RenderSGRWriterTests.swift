import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal
import AnimatedTestSupport

@Suite struct RenderSGRWriterTests {
    func randomGrid(_ w: Int, _ h: Int, colors: [UInt32], mode: ColorMode, seed: inout TestRandom) -> CellGrid {
        var px: [UInt8] = []
        for _ in 0..<(w * h * 2) {
            let c = colors.randomElement(using: &seed)!
            if c == CellColor.terminalDefault { px += [0, 0, 0, 0] }
            else { px += [UInt8(c >> 16), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF), 255] }
        }
        let g = CellGrid()
        CellRenderer(mode: mode, background: .terminal).render(frame(w, h * 2, px), into: g)
        return g
    }

    @Test func exactBytesForAFullWrite() {
        let g = CellGrid()
        CellRenderer(mode: .truecolor, background: .terminal)
            .render(frame(2, 2, [1, 2, 3, 255, 9, 9, 9, 255, 4, 5, 6, 255, 9, 9, 9, 255]), into: g)
        var w = SGRCellWriter(mode: .truecolor)
        w.update(screen: CellGrid(), to: g, row: 2, column: 4, screenColumns: 80)
        let expected = "\u{1B}[3;5H\u{1B}[38;2;1;2;3;48;2;4;5;6m▀\u{1B}[48;2;9;9;9m \u{1B}[m"
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected)
    }

    @Test func unchangedFramesWriteNothingAndChangesWriteOnlyThemselves() {
        var rng = TestRandom("RenderSGRWriterTests.unchangedFrames")
        let a = randomGrid(20, 6, colors: [0xFF0000, 0x00FF00, 0x0000FF], mode: .truecolor, seed: &rng)
        let b = CellGrid(); b.copy(from: a)
        let screen = CellGrid(); screen.copy(from: a)
        var w = SGRCellWriter(mode: .truecolor)
        w.update(screen: screen, to: b, row: 0, column: 0, screenColumns: 20)
        #expect(w.bytes.isEmpty)
        b.glyphs[27] = CellGlyph.space.rawValue; b.foregrounds[27] = 0x123456; b.backgrounds[27] = 0x123456
        w.removeAll()
        w.update(screen: screen, to: b, row: 0, column: 0, screenColumns: 20)
        #expect(String(decoding: w.bytes, as: UTF8.self) == "\u{1B}[2;8H\u{1B}[48;2;18;52;86m \u{1B}[m")
    }

    @Test(arguments: [ColorMode.truecolor, .palette256, .palette16])
    func diffsReproduceEveryFrameOnATerminal(mode: ColorMode) {
        var rng = TestRandom("RenderSGRWriterTests.diffsReproduce")
        let colors: [UInt32] = [CellColor.terminalDefault, 0xFF0000, 0x00CD00, 0x0000EE, 0xFFFFFF, 0x5F87AF]
        let cols = 30, rows = 12
        var term = MiniTerminal(cols: cols, rows: rows)
        var w = SGRCellWriter(mode: mode)
        var prev: CellGrid? = nil
        let screen = CellGrid()
        for _ in 0..<30 {
            let next = randomGrid(24, 8, colors: colors, mode: mode, seed: &rng)
            if let p = prev {   // mostly unchanged frames, like real animations
                for i in 0..<next.count where Int.random(in: 0..<10, using: &rng) > 1 {
                    next.glyphs[i] = p.glyphs[i]; next.foregrounds[i] = p.foregrounds[i]; next.backgrounds[i] = p.backgrounds[i]
                }
            }
            w.removeAll()
            w.update(screen: screen, to: next, row: 3, column: 6, screenColumns: cols)
            term.feed(w.bytes)
            #expect(term.errors.isEmpty, "\(term.errors)")
            #expect(term.matches(next, row: 3, column: 6))
            #expect(term.fg == CellColor.terminalDefault && term.bg == CellColor.terminalDefault)
            prev = next
        }
        #expect(term.sawTruecolor == (mode == .truecolor))
        #expect(term.sawPalette == (mode != .truecolor))
    }

    @Test func printLinesWritesEveryRowThenANewline() {
        let g = CellGrid()
        CellRenderer(mode: .palette256, background: .terminal)
            .render(frame(1, 4, [255, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), into: g)
        var w = SGRCellWriter(mode: .palette256)
        w.printLines(g)
        #expect(String(decoding: w.bytes, as: UTF8.self) == "\u{1B}[38;5;196m▀\u{1B}[m\n \n")
    }

    @Test func sixteenColourCodes() {
        let g = CellGrid()
        CellRenderer(mode: .palette16, background: .terminal)
            .render(frame(1, 2, [255, 0, 0, 255, 0, 0, 238, 255]), into: g)
        var w = SGRCellWriter(mode: .palette16)
        w.printLines(g)
        #expect(String(decoding: w.bytes, as: UTF8.self) == "\u{1B}[91;44m▀\u{1B}[m\n")
    }

    @Test func toleranceReusesIndistinguishableColoursAndBoundsTheError() {
        var rng = TestRandom("RenderSGRWriterTests.tolerance")
        let cols = 40, rows = 10
        var term = MiniTerminal(cols: cols, rows: rows)
        let tolerance = SGRCellWriter.defaultTolerance
        var exact = SGRCellWriter(mode: .truecolor)
        var near = SGRCellWriter(mode: .truecolor, tolerance: tolerance)
        let screen = CellGrid(), exactScreen = CellGrid()
        var exactBytes = 0, nearBytes = 0
        for frameNo in 0..<20 {
            // A smooth gradient drifting by one level per frame, with a little noise.
            var px: [UInt8] = []
            for y in 0..<16 {
                for x in 0..<40 {
                    let n = UInt8.random(in: 0...2, using: &rng)
                    px += [UInt8(60 + x * 3 + frameNo), UInt8(80 + y * 4) &+ n, 120, 255]
                }
            }
            let next = CellGrid()
            CellRenderer(mode: .truecolor, background: .terminal).render(frame(40, 16, px), into: next)
            near.removeAll(); exact.removeAll()
            near.update(screen: screen, to: next, row: 1, column: 0, screenColumns: cols)
            exact.update(screen: exactScreen, to: next, row: 1, column: 0, screenColumns: cols)
            nearBytes += near.bytes.count; exactBytes += exact.bytes.count
            term.feed(near.bytes)
            #expect(term.errors.isEmpty, "\(term.errors)")
            // The terminal shows exactly what the writer recorded...
            #expect(term.matches(screen, row: 1, column: 0))
            // ...and that is within the tolerance of the frame, half by half.
            let lab = OKLabCache()
            for i in 0..<next.count {
                let (t, b) = SGRCellWriter.halves(next, i), (st, sb) = SGRCellWriter.halves(screen, i)
                #expect(lab.distanceSquared(t, st) <= tolerance * tolerance * 1.0001)
                #expect(lab.distanceSquared(b, sb) <= tolerance * tolerance * 1.0001)
            }
        }
        #expect(nearBytes * 10 < exactBytes * 7, "tolerance saved too little: \(nearBytes) vs \(exactBytes)")
    }
}

@Suite struct RenderOKLabCacheTests {
    @Test func distancesAreRightEvenWhenColoursShareACacheSlot() {
        let cache = OKLabCache()
        // Find two different colours that hash to the same slot, as the cache does.
        func slot(_ c: UInt32) -> UInt32 { (c &* 0x9E37_79B1) >> 20 }
        let a: UInt32 = 0x0000FF
        var b: UInt32 = 1
        while b == a || slot(b) != slot(a) { b += 1 }
        let pa = PaletteQuantizer.oklab(0, 0, 255)
        let pb = PaletteQuantizer.oklab(UInt8(b >> 16), UInt8(b >> 8 & 0xFF), UInt8(b & 0xFF))
        let expected = (pa.0 - pb.0) * (pa.0 - pb.0) + (pa.1 - pb.1) * (pa.1 - pb.1) + (pa.2 - pb.2) * (pa.2 - pb.2)
        for _ in 0..<3 {
            #expect(abs(cache.distanceSquared(a, b) - expected) < 1e-6)
            #expect(abs(cache.distanceSquared(b, a) - expected) < 1e-6)
        }
        #expect(cache.distanceSquared(a, a) == 0)
    }
}
