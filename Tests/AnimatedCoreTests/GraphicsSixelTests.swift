#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal
import AnimatedTestSupport

/// A smooth frame with many colours (more than 256): gradients in r and g, a diagonal in b.
func gradientFrame(_ w: Int, _ h: Int, index: Int = 0, shift: Int = 0) -> ScaledFrame {
    var px = [UInt8](repeating: 255, count: w * h * 4)
    for y in 0..<h {
        for x in 0..<w {
            let o = (y * w + x) * 4
            px[o] = UInt8((x + shift) * 255 / max(1, w - 1 + shift))
            px[o + 1] = UInt8(y * 255 / max(1, h - 1))
            px[o + 2] = UInt8(((x + y) * 128 / max(1, w + h)) + 64)
        }
    }
    return ScaledFrame(index: index, size: RenderSize(width: w, height: h), pixels: px)
}

func solidFrame(_ w: Int, _ h: Int, _ rgba: (UInt8, UInt8, UInt8, UInt8), index: Int = 0) -> ScaledFrame {
    var px = [UInt8](repeating: 0, count: w * h * 4)
    for k in 0..<(w * h) { px[k * 4] = rgba.0; px[k * 4 + 1] = rgba.1; px[k * 4 + 2] = rgba.2; px[k * 4 + 3] = rgba.3 }
    return ScaledFrame(index: index, size: RenderSize(width: w, height: h), pixels: px)
}

@Suite struct GraphicsSixelTests {
    @Test func fewColoursDecodeBackWithinThePercentRounding() throws {
        // Four quadrants of four colours: the palette holds them exactly; sixel colours are
        // percentages, so each channel comes back within 255/200.
        let w = 37, h = 23   // neither a multiple of 6 rows nor even
        var px = [UInt8](repeating: 255, count: w * h * 4)
        let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 200, 0), (10, 20, 250), (240, 240, 16)]
        for y in 0..<h { for x in 0..<w {
            let c = colours[(y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1)]
            let o = (y * w + x) * 4
            px[o] = c.0; px[o + 1] = c.1; px[o + 2] = c.2
        } }
        let f = ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: px)
        let enc = SixelEncoder(background: .terminal)
        let out = enc.encode(f)
        let img = try SixelTestImage.decode(out)
        #expect(img.width == w && img.height == h)
        let opaque = OpaqueFrame(f, background: .terminal)
        for (k, p) in img.pixels.enumerated() {
            let p = try #require(p, "pixel \(k) unpainted")
            #expect(abs(Int(p.0) - Int(opaque.rgb[k * 3])) <= 1 && abs(Int(p.1) - Int(opaque.rgb[k * 3 + 1])) <= 1
                    && abs(Int(p.2) - Int(opaque.rgb[k * 3 + 2])) <= 1, "pixel \(k)")
        }
        #expect(enc.lastPSNR == .infinity)
    }

    @Test func gradientDecodesBackWithinTheQuantiserError() throws {
        let f = gradientFrame(160, 90)
        for registers in [256, 16] {
            let enc = SixelEncoder(registers: registers, background: .terminal)
            let img = try SixelTestImage.decode(enc.encode(f))
            #expect(img.registersDefined <= registers)
            let psnr = try #require(img.psnr(against: OpaqueFrame(f, background: .terminal)))
            // What the encoder measured (before percent rounding) and what a terminal shows agree.
            #expect(abs(psnr - enc.lastPSNR) < 1.5, "registers \(registers): decoded \(psnr) vs measured \(enc.lastPSNR)")
            #expect(psnr > (registers == 256 ? 32 : 22), "registers \(registers): PSNR \(psnr)")
        }
    }

    @Test func transparentPixelsAreFlattenedOverTheBackground() throws {
        let f = solidFrame(8, 8, (255, 0, 0, 0))
        let img = try SixelTestImage.decode(SixelEncoder(background: .color(0, 0, 255)).encode(f))
        // Every pixel painted (nothing of a previous frame shows through), in the background.
        #expect(img.pixels.allSatisfy { $0.map { $0 == (0, 0, 255) } ?? false })
        let img2 = try SixelTestImage.decode(SixelEncoder(background: .terminal, terminalColor: (255, 255, 255)).encode(f))
        #expect(img2.pixels.allSatisfy { $0.map { $0 == (255, 255, 255) } ?? false })
    }

    @Test func oneSharedPaletteWhileItServesAnOwnPaletteOnASceneChange() throws {
        let enc = SixelEncoder(background: .terminal)
        let a = try SixelTestImage.decode(enc.encode(gradientFrame(120, 60)))
        #expect(enc.palettesBuilt == 1 && enc.lastUsedSharedPalette)
        // A slightly moved gradient: the first palette still serves.
        _ = enc.encode(gradientFrame(120, 60, index: 1, shift: 4))
        #expect(enc.palettesBuilt == 1 && enc.lastUsedSharedPalette)
        // A frame in colours the palette lacks (greens only) gets its own.
        var px = [UInt8](repeating: 255, count: 120 * 60 * 4)
        for k in 0..<(120 * 60) { px[k * 4] = 0; px[k * 4 + 1] = UInt8(k % 120 * 2); px[k * 4 + 2] = 0 }
        let green = ScaledFrame(index: 2, size: RenderSize(width: 120, height: 60), pixels: px)
        let b = try SixelTestImage.decode(enc.encode(green))
        #expect(enc.palettesBuilt == 2 && !enc.lastUsedSharedPalette)
        #expect(try #require(b.psnr(against: OpaqueFrame(green, background: .terminal))) > 35)
        #expect(a.width == 120)
    }
}

@Suite struct TmpDbg {
    @Test func dbg() throws {
        let enc = SixelEncoder(background: .terminal)
        for c: (UInt8, UInt8, UInt8, UInt8) in [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)] {
            let out = enc.encode(solidFrame(8, 8, c))
            print(String(decoding: out.prefix(120), as: UTF8.self).debugDescription)
        }
    }
}
