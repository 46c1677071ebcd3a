import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// 16-colour hue keeping, the terminal's own palette (OSC 4) and dithering.
@Suite struct RenderDitherTests {
    func oklabChroma(_ c: (UInt8, UInt8, UInt8)) -> (L: Float, C: Float, h: Float) {
        let l = PaletteQuantizer.oklab(c.0, c.1, c.2)
        return (l.0, (l.1 * l.1 + l.2 * l.2).squareRoot(), atan2f(l.2, l.1))
    }

    func hueDistance(_ a: Float, _ b: Float) -> Float {
        var d = abs(a - b)
        if d > .pi { d = 2 * .pi - d }
        return d
    }

    @Test func sixteenColoursKeepTheHueOfDarkAndPaleColours() {
        let q = PaletteQuantizer(mode: .palette16)
        // Teal, dark green, navy, olive, plum, pale pink: plain OKLab distance maps each to a
        // grey (or black); the hue-keeping distance keeps a colour of the same hue family.
        for c: (UInt8, UInt8, UInt8) in [(0, 80, 80), (0, 90, 20), (20, 20, 110), (110, 110, 0), (110, 30, 110), (240, 170, 200)] {
            let got = PaletteQuantizer.xtermRGB(Int(q.index(c.0, c.1, c.2)))
            let src = oklabChroma(c), shown = oklabChroma(got)
            #expect(shown.C > 0.05, "\(c) shown as grey \(got)")
            #expect(hueDistance(src.h, shown.h) < .pi / 4, "\(c) → \(got)")
        }
        // Greys stay greys, in order of lightness.
        #expect(q.index(0, 0, 0) == 0 && q.index(20, 20, 20) == 0)
        #expect(q.index(120, 120, 120) == 8)
        #expect(q.index(230, 230, 230) == 7 && q.index(255, 255, 255) == 15)
        // Exact palette colours map to themselves.
        for i in 0..<16 {
            let (r, g, b) = PaletteQuantizer.xtermRGB(i)
            #expect(PaletteQuantizer.xtermRGB(Int(q.index(r, g, b))) == (r, g, b), "entry \(i)")
        }
    }

    @Test func theTerminalsOwnSixteenColoursAreUsed() {
        // A theme whose "blue" (4) is a light sky blue and whose "red" (1) is orange.
        var theme = (0..<16).map { i -> RGBColor in let (r, g, b) = PaletteQuantizer.xtermRGB(i); return RGBColor(r, g, b) }
        theme[4] = RGBColor(0x87, 0xCE, 0xFA); theme[1] = RGBColor(0xFF, 0x8C, 0x00)
        let q = PaletteQuantizer(mode: .palette16, palette16: theme)
        #expect(q.index(0x87, 0xCE, 0xFA) == 4)
        #expect(q.index(0xFF, 0x8C, 0x00) == 1)
        #expect(q.color(of: 4) == (0x87, 0xCE, 0xFA))
        let xterm = PaletteQuantizer(mode: .palette16)
        #expect(xterm.index(0xFF, 0x8C, 0x00) != 1 || xterm.color(of: 1) == (205, 0, 0))
        // Anything but 16 entries is ignored.
        #expect(PaletteQuantizer(mode: .palette16, palette16: Array(theme.prefix(8))).color(of: 4) == (0, 0, 238))
    }

    func patch(_ w: Int, _ h: Int, _ c: (UInt8, UInt8, UInt8), alpha: UInt8 = 255) -> ScaledFrame {
        var px = [UInt8](repeating: 0, count: w * h * 4)
        for i in 0..<(w * h) { px[i * 4] = c.0; px[i * 4 + 1] = c.1; px[i * 4 + 2] = c.2; px[i * 4 + 3] = alpha }
        return ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: px)
    }

    /// Mean linear-light colour of the mapped pixels, and the distinct indices used.
    func mapped(_ m: PixelColorMapper, _ f: ScaledFrame) -> (mean: [Float], indices: Set<UInt32>, raw: [UInt32]) {
        let n = f.size.width * f.size.height
        let out = Array(UnsafeBufferPointer(start: m.map(f), count: n))
        let lin = SRGBTables.shared.toLinear
        var sum: [Float] = [0, 0, 0]
        for v in out where v != CellColor.terminalDefault {
            let (r, g, b) = m.quantizer!.color(of: UInt8(v))
            sum[0] += lin[Int(r)]; sum[1] += lin[Int(g)]; sum[2] += lin[Int(b)]
        }
        return (sum.map { $0 / Float(n) }, Set(out), out)
    }

    func error(_ mean: [Float], _ c: (UInt8, UInt8, UInt8)) -> Float {
        let lin = SRGBTables.shared.toLinear
        return abs(mean[0] - lin[Int(c.0)]) + abs(mean[1] - lin[Int(c.1)]) + abs(mean[2] - lin[Int(c.2)])
    }

    @Test(arguments: [ColorMode.palette16, .palette256])
    func ditheringBringsTheAverageCloser(mode: ColorMode) {
        for c: (UInt8, UInt8, UInt8) in [(0, 100, 100), (180, 120, 60), (90, 90, 90), (250, 200, 220)] {
            let f = patch(32, 32, c)
            let none = mapped(PixelColorMapper(mode: mode, background: .terminal, dither: .none), f)
            let ordered = mapped(PixelColorMapper(mode: mode, background: .terminal, dither: .ordered), f)
            let diffused = mapped(PixelColorMapper(mode: mode, background: .terminal, dither: .diffusion), f)
            #expect(none.indices.count == 1)
            #expect(error(ordered.mean, c) <= error(none.mean, c), "\(mode) ordered \(c)")
            #expect(error(diffused.mean, c) < max(0.02, error(none.mean, c) / 3), "\(mode) diffusion \(c)")
        }
    }

    @Test(arguments: [DitherMode.none, .ordered, .diffusion])
    func transparentPixelsStayTheTerminalsAndOutputIsDeterministic(dither: DitherMode) {
        var f = patch(16, 8, (0, 100, 100))
        var px = f.pixels
        for i in stride(from: 0, to: 16 * 8, by: 3) { px[i * 4 + 3] = 0 }
        f = ScaledFrame(index: 0, size: f.size, pixels: px)
        let m = PixelColorMapper(mode: .palette16, background: .terminalBlend(0, 0, 0), dither: dither)
        let a = mapped(m, f).raw, b = mapped(m, f).raw
        #expect(a == b)
        for i in 0..<(16 * 8) {
            #expect((a[i] == CellColor.terminalDefault) == (i % 3 == 0), "pixel \(i)")
        }
    }

    @Test func orderedDitherIsLocal() {
        // Changing one pixel changes at most that pixel: still areas stay still in animations.
        let f = patch(16, 16, (180, 120, 60))
        var px = f.pixels
        px[(5 * 16 + 7) * 4] = 0
        let g = ScaledFrame(index: 1, size: f.size, pixels: px)
        let m = PixelColorMapper(mode: .palette16, background: .terminal, dither: .ordered)
        let a = mapped(m, f).raw, b = mapped(m, g).raw
        #expect(zip(a, b).enumerated().allSatisfy { $0.offset == 5 * 16 + 7 || $0.element.0 == $0.element.1 })
    }

    @Test func truecolorIgnoresDithering() {
        let f = patch(4, 4, (1, 2, 3))
        let m = PixelColorMapper(mode: .truecolor, background: .terminal, dither: .diffusion)
        #expect(Array(UnsafeBufferPointer(start: m.map(f), count: 16)) == Array(repeating: 0x010203, count: 16))
    }
}
