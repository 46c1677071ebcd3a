import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Which sub-pixels of a 2×12 raster a glyph covers: comparable across symbol sets
/// (▀ is half-block mask 1, quadrant mask 3 and octant mask 0x0F).
func coverage2x12(_ set: SymbolSet, _ mask: UInt8) -> [Bool] {
    (0..<24).map { i in
        let x = i % 2, y = i / 2
        let bit = (y * set.rows / 12) * set.columns + x * set.columns / 2
        return mask >> UInt8(bit) & 1 != 0
    }
}

@Suite struct RenderSymbolTableTests {
    /// "BLOCK OCTANT-3" → mask 0b100: octant n is bit n−1.
    func maskFromName(_ digits: String) -> UInt8 {
        digits.reduce(0) { $0 | 1 << (UInt8(String($1))! - 1) }
    }

    @Test func octantCodePointsMatchUnicodeNames() {
        // Entries of Unicode 16.0 UnicodeData.txt (code point; BLOCK OCTANT-digits).
        let names: [(UInt32, String)] = [
            (0x1CD00, "3"), (0x1CD01, "23"), (0x1CD02, "123"), (0x1CD03, "4"), (0x1CD05, "124"),
            (0x1CD09, "5"), (0x1CD0D, "135"), (0x1CD17, "12345"), (0x1CD20, "146"), (0x1CD35, "23456"),
            (0x1CD36, "17"), (0x1CD49, "2357"), (0x1CD4D, "12457"), (0x1CD51, "67"), (0x1CD70, "1234567"),
            (0x1CD71, "18"), (0x1CD94, "2368"), (0x1CD98, "12468"), (0x1CDAB, "1234568"), (0x1CDDB, "15678"),
            (0x1CDDF, "235678"), (0x1CDE3, "1245678"), (0x1CDE4, "1345678"), (0x1CDE5, "2345678"),
        ]
        for (cp, digits) in names {
            #expect(SymbolSet.octant.scalar(maskFromName(digits)).value == cp, "U+\(String(cp, radix: 16)) OCTANT-\(digits)")
        }
        // The block has exactly 230 characters, all used, each once.
        let inBlock = (0..<256).map { SymbolSet.octant.scalar(UInt8($0)).value }.filter { (0x1CD00...0x1CDE5).contains($0) }
        #expect(inBlock.count == 230 && Set(inBlock).count == 230)
    }

    @Test func octantPatternsEncodedElsewhereAreTheRightShapes() {
        // Each borrowed character is checked by its shape in a coarser set or by its name.
        let quadrantShapes: [UInt8] = [0x00, 0xFF, 0x0F, 0xF0, 0x55, 0xAA, 0x05, 0x0A, 0x50, 0xA0, 0xF5, 0xA5, 0x5F, 0xAF, 0x5A, 0xFA]
        for m in quadrantShapes {
            let s = SymbolSet.octant.scalar(m)
            let q = (0..<16).first { SymbolSet.quadrant.scalar(UInt8($0)) == s }
            #expect(q != nil, "octant \(m) borrows a quadrant-table character")
            if let q { #expect(coverage2x12(.quadrant, UInt8(q)) == coverage2x12(.octant, m)) }
        }
        let named: [(UInt8, UInt32)] = [   // UPPER/LOWER ONE QUARTER, THREE QUARTERS, MIDDLE LEFT/RIGHT, corners
            (0x03, 0x1FB82), (0xC0, 0x2582), (0x3F, 0x1FB85), (0xFC, 0x2586), (0x14, 0x1FBE6), (0x28, 0x1FBE7),
            (0x01, 0x1CEA8), (0x02, 0x1CEAB), (0x40, 0x1CEA3), (0x80, 0x1CEA0),
        ]
        for (m, cp) in named { #expect(SymbolSet.octant.scalar(m).value == cp) }
        #expect(Set((0..<256).map { SymbolSet.octant.scalar(UInt8($0)) }).count == 256)
    }

    @Test func sextantAndQuadrantTables() {
        // U+1FB00 BLOCK SEXTANT-1, U+1FB13 SEXTANT-35, U+1FB14 SEXTANT-235 (135 is ▌),
        // U+1FB27 SEXTANT-146, U+1FB28 SEXTANT-1246, U+1FB29 SEXTANT-346 (246 is ▐),
        // U+1FB3B SEXTANT-23456.
        let names: [(UInt32, String)] = [(0x1FB00, "1"), (0x1FB13, "35"), (0x1FB14, "235"), (0x1FB27, "146"),
                                         (0x1FB28, "1246"), (0x1FB29, "346"), (0x1FB3B, "23456")]
        for (cp, digits) in names { #expect(SymbolSet.sextant.scalar(maskFromName(digits)).value == cp) }
        #expect(SymbolSet.sextant.scalar(21) == "▌" && SymbolSet.sextant.scalar(42) == "▐")
        #expect(SymbolSet.sextant.scalar(0) == " " && SymbolSet.sextant.scalar(63) == "█")
        #expect(Set((0..<64).map { SymbolSet.sextant.scalar(UInt8($0)) }).count == 64)
        #expect((0..<16).map { String(Character(SymbolSet.quadrant.scalar(UInt8($0)))) }.joined()
                == " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█")
        #expect((0..<4).map { String(Character(SymbolSet.half.scalar(UInt8($0)))) }.joined() == " ▀▄█")
    }

    @Test func coverageOfEveryGlyphRoundTrips() {
        for set in SymbolSet.allCases {
            for m in 0...Int(set.fullMask) {
                let s = set.scalar(UInt8(m))
                let found = SymbolSet.coverage(of: s)
                #expect(found != nil)
                if let (fs, fm) = found { #expect(coverage2x12(fs, fm) == coverage2x12(set, UInt8(m)), "\(set) \(m)") }
            }
        }
        #expect(SymbolSet.coverage(of: "A") == nil)
    }
}

@Suite struct RenderSymbolEncoderTests {
    let D = CellColor.terminalDefault

    /// The squared error in `space` of drawing `colors` as `mask` with the groups' means.
    func error(_ colors: [UInt32], mask: Int, space: SymbolColorSpace) -> Float {
        let lin = SRGBTables.shared.toLinear
        func v(_ c: UInt32) -> SIMD4<Float> {
            let r = UInt8(c >> 16), g = UInt8(c >> 8 & 0xFF), b = UInt8(c & 0xFF)
            switch space {
            case .linear: return SIMD4(lin[Int(r)], lin[Int(g)], lin[Int(b)], 0)
            case .oklab: let l = PaletteQuantizer.oklab(r, g, b); return SIMD4(l.0, l.1, l.2, 0)
            case .srgb: return SIMD4(Float(r), Float(g), Float(b), 0) / 255
            case .ycbcr:
                let (R, G, B) = (Float(r), Float(g), Float(b))
                return SIMD4(0.299 * R + 0.587 * G + 0.114 * B, 0.5 * (-0.168736 * R - 0.331264 * G + 0.5 * B),
                             0.5 * (0.5 * R - 0.418688 * G - 0.081312 * B), 0) / 255
            }
        }
        var e: Float = 0
        for group in [true, false] {
            let members = colors.indices.filter { (mask >> $0 & 1 != 0) == group }
            guard !members.isEmpty else { continue }
            let mean = members.reduce(SIMD4<Float>.zero) { $0 + v(colors[$1]) } / Float(members.count)
            for k in members { let d = v(colors[k]) - mean; e += (d * d).sum() }
        }
        return e
    }

    @Test(arguments: [SymbolSet.half, .quadrant, .sextant, .octant], SymbolColorSpace.allCases)
    func choiceIsTheLeastSquaresSplit(symbols: SymbolSet, space: SymbolColorSpace) {
        var rng = SplitMix(state: 14)
        let n = symbols.count
        let palette: [UInt32] = [0x000000, 0xFFFFFF, 0xE03020, 0x20A040, 0x3050D0, 0x808080, 0xF0E000, 0x400040]
        for _ in 0..<300 {
            let colors = (0..<n).map { _ in palette[Int(rng.next() % 8)] }
            var px: [UInt8] = []
            for y in 0..<symbols.rows {
                for x in 0..<symbols.columns {
                    let c = colors[y * symbols.columns + x]
                    px += [UInt8(c >> 16), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF), 255]
                }
            }
            let cells = px.withUnsafeBufferPointer {
                SymbolEncoder(symbols: symbols, background: .terminal, space: space)
                    .encode($0.baseAddress!, width: symbols.columns, height: symbols.rows, columns: 1, rows: 1)
            }
            let best = (0..<(1 << n)).map { error(colors, mask: $0, space: space) }.min()!
            let chosen = error(colors, mask: Int(cells.masks[0]), space: space)
            #expect(chosen <= best * 1.0001 + 1e-6, "\(colors) → mask \(cells.masks[0])")
            // Two-colour cells are reproduced exactly.
            if Set(colors).count <= 2 {
                for k in 0..<n {
                    let shown = cells.masks[0] >> UInt8(k) & 1 != 0 ? cells.foregrounds[0] : cells.backgrounds[0]
                    #expect(shown == colors[k])
                }
            }
        }
    }

    @Test func transparentSubpixelsShowTheTerminalBackground() {
        // Sextant cell: top row transparent, then red, green (opaque) rows.
        let px: [UInt8] = [0, 0, 0, 0,  9, 9, 9, 0,  255, 0, 0, 255,  255, 0, 0, 255,  255, 0, 0, 255,  255, 0, 0, 200]
        let cells = px.withUnsafeBufferPointer {
            SymbolEncoder(symbols: .sextant, background: .terminal).encode($0.baseAddress!, width: 2, height: 3, columns: 1, rows: 1)
        }
        #expect(cells.masks[0] == 0b111100 && cells.foregrounds[0] == 0xFF0000 && cells.backgrounds[0] == D)
        // Over a chosen colour nothing is transparent: the blend decides.
        let opaqueRed = px.enumerated().map { $0.offset == 23 ? 255 : $0.element }
        let white = opaqueRed.withUnsafeBufferPointer {
            SymbolEncoder(symbols: .sextant, background: .color(255, 255, 255)).encode($0.baseAddress!, width: 2, height: 3, columns: 1, rows: 1)
        }
        #expect(white.masks[0] == 0b111100 && white.foregrounds[0] == 0xFF0000 && white.backgrounds[0] == 0xFFFFFF
                || white.masks[0] == 0b000011 && white.backgrounds[0] == 0xFF0000 && white.foregrounds[0] == 0xFFFFFF)
    }

    /// One sextant cell from six sub-pixel colours (left to right, top to bottom).
    func encodeCell(_ colors: [UInt32], space: SymbolColorSpace) -> SymbolCells {
        let px = colors.flatMap { [UInt8($0 >> 16), UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF), 255] }
        return px.withUnsafeBufferPointer {
            SymbolEncoder(symbols: .sextant, background: .terminal, space: space)
                .encode($0.baseAddress!, width: 2, height: 3, columns: 1, rows: 1)
        }
    }

    @Test func defaultColoursAreTheGroupsMeanCodeValues() {
        // Dark strokes (three greys) on white: the dark group's colour is the mean of its code
        // values, 0x404040, not the linear-light mean (0x545454, a fainter stroke).
        let cells = encodeCell([0x000000, 0xFFFFFF, 0x404040, 0xFFFFFF, 0x808080, 0xFFFFFF], space: SymbolEncoder.ColorSpace.ycbcr)
        #expect(SymbolScaler(symbols: .sextant, background: .terminal).colorSpace == .ycbcr)
        let dark = cells.masks[0] & 1 != 0 ? cells.foregrounds[0] : cells.backgrounds[0]
        let light = cells.masks[0] & 1 != 0 ? cells.backgrounds[0] : cells.foregrounds[0]
        #expect(cells.masks[0] == 0b010101 || cells.masks[0] == 0b101010)
        #expect(dark == 0x404040 && light == 0xFFFFFF)
        // Linear light keeps the light: the same split, its mean colour.
        let linear = encodeCell([0x000000, 0xFFFFFF, 0x404040, 0xFFFFFF, 0x808080, 0xFFFFFF], space: .linear)
        #expect(linear.foregrounds[0] == 0x545454 || linear.backgrounds[0] == 0x545454)
    }

    @Test func ycbcrSplitsByLumaBeforeChroma() {
        // Left column: reds and a green of nearly equal luma; right column: dark greys and a
        // light one. In code values the red/green difference is the largest, so sRGB error
        // splits red from green; Y'CbCr weighs that chroma step at half and splits the light
        // grey from the rest (least squares worked out by hand: 0b001000).
        let red: UInt32 = 0xB4_3C_3C, green: UInt32 = 0x3C_84_3C   // Y' 95.9 and 102.3
        let colors: [UInt32] = [red, 0x5A5A5A, green, 0x9A9A9A, red, 0x5A5A5A]
        let luma = encodeCell(colors, space: .ycbcr), rgb = encodeCell(colors, space: .srgb)
        let lumaMask = Int(luma.masks[0]), rgbMask = Int(rgb.masks[0])
        func splits(_ mask: Int, _ a: Int, _ b: Int) -> Bool { (mask >> a & 1) != (mask >> b & 1) }
        #expect(splits(rgbMask, 0, 2), "sRGB splits red from green: \(rgbMask)")
        #expect(!splits(lumaMask, 0, 2) && splits(lumaMask, 1, 3), "Y'CbCr splits by brightness: \(lumaMask)")
        #expect(lumaMask == 0b001000 || lumaMask == 0b110111)
    }

    @Test func symbolScalerAveragesCodeValuesForCodeValueSpaces() {
        // Black and white columns, two source pixels per sub-pixel: code values average to 128
        // (0x80); linear light would give 188 (0xBC).
        let canvas = Canvas(width: 4, height: 3)
        for i in 0..<12 {
            let v: UInt8 = i % 2 == 0 ? 0 : 255
            canvas.pixels[i * 4] = v; canvas.pixels[i * 4 + 1] = v; canvas.pixels[i * 4 + 2] = v; canvas.pixels[i * 4 + 3] = 255
        }
        let size = RenderSize(width: 1, height: 2)
        let code = SymbolScaler(symbols: .sextant, background: .terminal).scale(canvas, index: 0, to: size).symbolCells!
        #expect(code.masks[0] == 0 && code.foregrounds[0] == 0x808080)
        let linear = SymbolScaler(symbols: .sextant, background: .terminal, colorSpace: .oklab).scale(canvas, index: 0, to: size).symbolCells!
        #expect(linear.masks[0] == 0 && linear.foregrounds[0] == 0xBCBCBC)
    }

    @Test func scalerCoversTheHalfBlockLayoutWithSubpixels() {
        // A 3-row half-block layout (odd): 2 cell rows; sextants get ⌈3·3/2⌉ = 5 sub-pixel rows, the
        // last cell row's bottom sub-pixel is transparent.
        let canvas = Canvas(width: 4, height: 5)
        for i in 0..<(canvas.width * canvas.height) {
            canvas.pixels[i * 4] = 200; canvas.pixels[i * 4 + 3] = 255
        }
        let scaler = SymbolScaler(symbols: .sextant, background: .terminal)
        #expect(scaler.subpixelSize(for: RenderSize(width: 2, height: 3)) == RenderSize(width: 4, height: 5))
        let f = scaler.scale(canvas, index: 7, to: RenderSize(width: 2, height: 3))
        #expect(f.index == 7 && f.size == RenderSize(width: 2, height: 3) && f.pixels.isEmpty)
        let cells = f.symbolCells!
        #expect(cells.columns == 2 && cells.rows == 2)
        #expect(cells.masks[0] == 0 && cells.foregrounds[0] == 0xC80000)
        #expect(cells.masks[2] == 0b001111 && cells.foregrounds[2] == 0xC80000 && cells.backgrounds[2] == D)
        #expect(f.byteCount == 4 * 9)
    }

    @Test func canonicalFormPutsTheDefaultColourInTheBackground() {
        let g = CellGrid(); g.symbols = .quadrant; g.resize(columns: 4, rows: 1)
        g.set(0, mask: 0b0110, foreground: D, background: 0x112233)      // → ~mask, fg 0x112233, bg D
        g.set(1, mask: 0b0110, foreground: 0xAA0000, background: 0x00AA00) // bit 0 must be foreground
        g.set(2, mask: 0b1111, foreground: 0x123456, background: 0x00AA00) // full: one colour
        g.set(3, mask: 0b0101, foreground: 0x123456, background: 0x123456)
        #expect((0..<4).map { g.glyphs[$0] } == [0b1001, 0b1001, 0, 0])
        #expect((0..<4).map { g.foregrounds[$0] } == [0x112233, 0x00AA00, 0x123456, 0x123456])
        #expect((0..<4).map { g.backgrounds[$0] } == [D, 0xAA0000, 0x123456, 0x123456])
    }
}

@Suite struct RenderSymbolWriterTests {
    /// Random pictures of a few colours (with transparency) encoded with `symbols`.
    func grid(_ symbols: SymbolSet, mode: ColorMode, rng: inout SplitMix, previous: CellGrid?) -> CellGrid {
        let cols = 16, rows = 6
        let canvas = Canvas(width: cols * symbols.columns, height: rows * symbols.rows)
        let colors: [UInt32] = [CellColor.terminalDefault, 0xFF0000, 0x00CD00, 0x0000EE, 0xFFFFFF, 0x5F87AF]
        for i in 0..<(canvas.width * canvas.height) {
            let c = colors[Int(rng.next() % UInt64(colors.count))]
            if c != CellColor.terminalDefault {
                canvas.pixels[i * 4] = UInt8(c >> 16); canvas.pixels[i * 4 + 1] = UInt8(c >> 8 & 0xFF)
                canvas.pixels[i * 4 + 2] = UInt8(c & 0xFF); canvas.pixels[i * 4 + 3] = 255
            }
        }
        let f = SymbolScaler(symbols: symbols, background: .terminal).scale(canvas, index: 0, to: RenderSize(width: cols, height: rows * 2))
        let g = CellGrid()
        CellRenderer(mode: mode, background: .terminal).render(f, into: g)
        if let p = previous {   // mostly unchanged frames, like real animations
            for i in 0..<g.count where rng.next() % 10 > 1 {
                g.glyphs[i] = p.glyphs[i]; g.foregrounds[i] = p.foregrounds[i]; g.backgrounds[i] = p.backgrounds[i]
            }
        }
        return g
    }

    @Test(arguments: [SymbolSet.quadrant, .sextant, .octant], [ColorMode.truecolor, .palette256, .palette16])
    func diffsReproduceEveryFrameOnATerminal(symbols: SymbolSet, mode: ColorMode) {
        var rng = SplitMix(state: 1414)
        let terminalBackground: UInt32 = 0x102030
        var term = TerminalScreen(columns: 24, rows: 10, background: terminalBackground)
        var writer = SGRCellWriter(mode: mode)
        let screen = CellGrid()
        var prev: CellGrid? = nil
        var bytesFull = 0, bytesDiff = 0
        for n in 0..<12 {
            let next = grid(symbols, mode: mode, rng: &rng, previous: prev)
            writer.removeAll()
            writer.update(screen: screen, to: next, row: 2, column: 4, screenColumns: 24)
            if n == 0 { bytesFull = writer.bytes.count } else { bytesDiff = max(bytesDiff, writer.bytes.count) }
            term.feed(writer.bytes)
            // Crop the terminal to the grid's cells and compare pixels.
            var crop = TerminalScreen(columns: next.columns, rows: next.rows)
            var bytes: [UInt8] = []
            for r in 0..<next.rows {
                for c in 0..<next.columns {
                    let cell = term.cells[(2 + r) * 24 + 4 + c]
                    bytes += Array("\u{1B}[38;2;\(cell.foreground >> 16);\(cell.foreground >> 8 & 0xFF);\(cell.foreground & 0xFF);48;2;\(cell.background >> 16);\(cell.background >> 8 & 0xFF);\(cell.background & 0xFF)m".utf8)
                    bytes += Array(String(Character(cell.scalar)).utf8)
                }
                bytes += Array("\r\n".utf8)
            }
            crop.feed(bytes)
            let shown = PictureQuality.rasterize(crop)
            #expect(shown.unknown == 0)
            #expect(shown.image == PictureQuality.rasterize(next, mode: mode, background: terminalBackground), "frame \(n)")
            #expect(screen.symbols == symbols)
            prev = next
        }
        #expect(bytesDiff < bytesFull)
        #expect(term.skippedSequences == 0)
    }

    @Test func printLinesDrawsTheGlyphs() {
        let g = CellGrid(); g.symbols = .sextant; g.resize(columns: 2, rows: 1)
        g.set(0, mask: 0b000001, foreground: 0xFF0000, background: 0x0000FF)
        g.set(1, mask: 0b010101, foreground: 0x00FF00, background: CellColor.terminalDefault)
        var w = SGRCellWriter(mode: .truecolor)
        w.printLines(g)
        #expect(String(decoding: w.bytes, as: UTF8.self)
                == "\u{1B}[38;2;255;0;0;48;2;0;0;255m\u{1FB00}\u{1B}[38;2;0;255;0;49m▌\u{1B}[m\n")
    }
}

/// `SymbolScaler` that counts calls per frame.
struct CountingSymbolScaler: FrameScaler {
    let calls: CallCounter
    let inner = SymbolScaler(symbols: .sextant, background: .terminal)
    func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        calls.record(index)
        return inner.scale(canvas, index: index, to: size)
    }
}

@Suite struct RenderSymbolPlaybackTests {
    @Test func cellsAreChosenOncePerFrameAndReplayedFromTheBuffer() throws {
        let time = ManualTime()
        let scaler = CountingSymbolScaler(calls: CallCounter(4))
        let p = try makePlayer(SolidDecoder(frames: 4, plays: 3), PlayerOptions(maxFPS: 0),
                               size: RenderSize(width: 8, height: 8), time: time, scaler: scaler)
        let run = play(p, time) { f in
            // Every cell of a solid frame is one colour: colour(k) packed, mask 0.
            guard let cells = f.symbolCells, cells.columns == 8, cells.rows == 4, cells.masks.allSatisfy({ $0 == 0 }) else { return nil }
            let c = cells.foregrounds[0]
            return (0..<4).first { let (r, g, b) = colour($0); return c == UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) }
        }
        #expect(run.frames == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3] && run.finished)
        // Three plays, one glyph choice per frame: later plays come from the frame buffer.
        #expect(scaler.calls.perFrame == [1, 1, 1, 1])
    }
}
