#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Test pictures drawn in code (supersampled 4×4 per pixel, so edges are anti-aliased as in
/// real images).
enum QualityTestImages {
    static func draw(_ w: Int, _ h: Int, _ color: (Double, Double) -> (UInt8, UInt8, UInt8)) -> Canvas {
        let c = Canvas(width: w, height: h)
        let lin = SRGBTables.shared.toLinear
        for y in 0..<h {
            for x in 0..<w {
                var acc = SIMD3<Float>.zero
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let (r, g, b) = color(Double(x) + (Double(sx) + 0.5) / 4, Double(y) + (Double(sy) + 0.5) / 4)
                        acc += SIMD3(lin[Int(r)], lin[Int(g)], lin[Int(b)])
                    }
                }
                let o = (y * w + x) * 4
                let t = SRGBTables.shared
                c.pixels[o] = t.srgb(fromLinear: acc.x / 16); c.pixels[o + 1] = t.srgb(fromLinear: acc.y / 16)
                c.pixels[o + 2] = t.srgb(fromLinear: acc.z / 16); c.pixels[o + 3] = 255
            }
        }
        return c
    }

    /// Hard-edged shapes: a disc, a tilted square and a diagonal band in flat colours.
    static func edges(_ w: Int, _ h: Int) -> Canvas {
        draw(w, h) { x, y in
            let u = x / Double(w), v = y / Double(h)
            let dx = (u - 0.3) * Double(w), dy = (v - 0.45) * Double(h)
            if dx * dx + dy * dy < pow(0.3 * Double(h), 2) { return (230, 180, 40) }
            let cx = (u - 0.72) * Double(w), cy = (v - 0.5) * Double(h)
            let a = 0.35, rx = cx * cos(a) + cy * sin(a), ry = -cx * sin(a) + cy * cos(a)
            if abs(rx) < 0.22 * Double(h) && abs(ry) < 0.22 * Double(h) { return (40, 200, 120) }
            if abs(u - v * 0.8 - 0.1) < 0.04 { return (200, 60, 200) }
            return (25, 35, 70)
        }
    }

    /// Lines one source pixel wide at several angles, dark on light and light on dark.
    static func thinLines(_ w: Int, _ h: Int) -> Canvas {
        draw(w, h) { x, y in
            let dark = x > Double(w) / 2
            for k in 0..<7 {
                let angle = Double(k) * .pi / 7 + 0.1
                let ox = Double(w) * (dark ? 0.75 : 0.25), oy = Double(h) * 0.5
                let d = abs((x - ox) * sin(angle) - (y - oy) * cos(angle))
                if d < 0.5 { return dark ? (240, 240, 200) : (20, 20, 90) }
            }
            return dark ? (30, 30, 30) : (235, 235, 235)
        }
    }
}

@Suite struct RenderQualityTests {
    static let columns = 24, rows = 10

    /// SSIM and PSNR of `symbols` drawing `canvas` into columns × rows cells.
    static func measure(_ canvas: Canvas, _ symbols: SymbolSet, space: SymbolColorSpace = SymbolScaler(symbols: .sextant, background: .terminal).colorSpace) -> (Double, Double) {
        let size = RenderSize(width: columns, height: rows * 2)
        let frame: ScaledFrame
        if symbols == .half {
            frame = AreaAverageScaler().scale(canvas, index: 0, to: size)
        } else {
            let scaler = SymbolScaler(symbols: symbols, background: .terminal)
            frame = ScaledFrame(index: 0, size: size, pixels: [], cells: scaler.encode(canvas, size: size, space: space))
        }
        let grid = CellGrid()
        CellRenderer(mode: .truecolor, background: .terminal).render(frame, into: grid)
        let shown = PictureQuality.rasterize(grid, mode: .truecolor)
        let reference = PictureQuality.reference(canvas, columns: columns, rows: rows)
        return (PictureQuality.ssim(shown, reference), PictureQuality.psnr(shown, reference))
    }

    @Test func ssimAndPSNROfKnownDifferences() {
        let w = 32, h = 24
        var a = RGBImage(width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h * 3))
        for i in 0..<(w * h) { a.pixels[i * 3] = UInt8((i * 7) % 256); a.pixels[i * 3 + 1] = UInt8(i % 200); a.pixels[i * 3 + 2] = 90 }
        #expect(PictureQuality.ssim(a, a) > 0.999_999)
        #expect(PictureQuality.psnr(a, a) == .infinity)
        var b = a
        for i in 0..<b.pixels.count { b.pixels[i] = UInt8(min(255, Int(b.pixels[i]) + 5)) }
        // Only the red channel saturates at 255 for a few pixels: PSNR is close to 10·log10(255²/25).
        #expect(abs(PictureQuality.psnr(a, b) - 34.15) < 0.3)
        var c = a
        for i in 0..<c.pixels.count where (i / 3) % 2 == 0 { c.pixels[i] = 255 - c.pixels[i] }
        let ssimOffset = PictureQuality.ssim(a, b), ssimNoise = PictureQuality.ssim(a, c)
        #expect(ssimOffset > 0.95 && ssimOffset < 1 && ssimNoise < 0.5)
    }

    @Test func rasterShowsEachGlyphsCoverage() {
        var screen = TerminalScreen(columns: 2, rows: 1, background: 0x000000)
        screen.feed(Array("\u{1B}[38;2;255;0;0;48;2;0;0;255m▌\u{1B}[38;5;46m\u{1FB00}\u{1B}[m".utf8))
        let (img, unknown) = PictureQuality.rasterize(screen)
        #expect(unknown == 0 && img.width == 12 && img.height == 12)
        func px(_ x: Int, _ y: Int) -> [UInt8] { Array(img.pixels[((y * 12) + x) * 3..<((y * 12) + x) * 3 + 3]) }
        #expect(px(2, 11) == [255, 0, 0] && px(3, 0) == [0, 0, 255])      // ▌: left half red
        #expect(px(8, 3) == [0, 255, 0] && px(8, 4) == [0, 0, 255] && px(9, 0) == [0, 0, 255])   // sextant 1: top-left third
    }

    @Test(arguments: ["edges", "thin lines"])
    func everySymbolSetBeatsHalfBlocks(image: String) {
        let w = Self.columns * PictureQuality.cellWidth * 2, h = Self.rows * PictureQuality.cellHeight * 2
        let canvas = image == "edges" ? QualityTestImages.edges(w, h) : QualityTestImages.thinLines(w, h)
        let (halfSSIM, halfPSNR) = Self.measure(canvas, .half)
        for symbols in [SymbolSet.quadrant, .sextant, .octant] {
            let (ssim, psnr) = Self.measure(canvas, symbols)
            #expect(ssim > halfSSIM + 0.02, "\(image) \(symbols): SSIM \(ssim) vs half \(halfSSIM)")
            #expect(psnr > halfPSNR, "\(image) \(symbols): PSNR \(psnr) vs half \(halfPSNR)")
        }
    }
}

