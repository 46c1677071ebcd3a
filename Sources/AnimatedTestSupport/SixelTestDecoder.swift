#if canImport(Glibc)
import Glibc
#endif
import AnimatedCore
import AnimatedTerminal

/// A small sixel decoder for tests: what a terminal would paint for our DCS … ST output.
/// Handles raster attributes ("Pan;Pad;Ph;Pv), colour introducers (#Pc, #Pc;2;R;G;B in percent),
/// repeats (!Pn), graphics carriage return ($) and new line (-). Pixels never painted stay
/// `unpainted`, so a test sees when the encoder leaves holes.
package struct SixelTestImage {
    package var width = 0, height = 0
    /// RGB per pixel, or nil where nothing was painted.
    package var pixels: [(UInt8, UInt8, UInt8)?] = []
    package var registersDefined = 0

    package enum Failure: Error { case noDCS, noTerminator, badRaster, undefinedColour(Int), outside }

    package static func decode(_ bytes: [UInt8]) throws -> SixelTestImage {
        // DCS P1;P2;P3 q — then the body up to ST (ESC \).
        guard let start = bytes.firstIndex(of: 0x1B), start + 1 < bytes.count, bytes[start + 1] == 0x50 else { throw Failure.noDCS }
        var i = start + 2
        while i < bytes.count, bytes[i] != 0x71 { i += 1 }    // 'q'
        i += 1
        var end = i
        while end + 1 < bytes.count, !(bytes[end] == 0x1B && bytes[end + 1] == 0x5C) { end += 1 }
        guard end + 1 < bytes.count else { throw Failure.noTerminator }

        var image = SixelTestImage()
        var palette: [Int: (UInt8, UInt8, UInt8)] = [:]
        var colour = 0, x = 0, band = 0
        func number() -> Int {
            var n = 0
            while i < end, (0x30...0x39).contains(bytes[i]) { n = n * 10 + Int(bytes[i] - 0x30); i += 1 }
            return n
        }
        func numbers() -> [Int] {
            var out = [number()]
            while i < end, bytes[i] == 0x3B { i += 1; out.append(number()) }
            return out
        }
        func paint(_ bits: UInt8, count: Int) throws {
            guard let rgb = palette[colour] else { throw Failure.undefinedColour(colour) }
            for dx in 0..<count {
                for bit in 0..<6 where bits & (1 << bit) != 0 {
                    let px = x + dx, py = band * 6 + bit
                    guard py < image.height else { continue }   // a band may extend below the image
                    guard px < image.width else { throw Failure.outside }
                    image.pixels[py * image.width + px] = rgb
                }
            }
            x += count
        }
        while i < end {
            let c = bytes[i]
            switch c {
            case 0x22:  // "
                i += 1
                let p = numbers()
                guard p.count == 4 else { throw Failure.badRaster }
                image.width = p[2]; image.height = p[3]
                image.pixels = Array(repeating: nil, count: image.width * image.height)
            case 0x23:  // #
                i += 1
                let p = numbers()
                colour = p[0]
                if p.count == 5 && p[1] == 2 {
                    func channel(_ v: Int) -> UInt8 { UInt8((v * 255 + 50) / 100) }
                    palette[colour] = (channel(p[2]), channel(p[3]), channel(p[4]))
                    image.registersDefined = max(image.registersDefined, palette.count)
                }
            case 0x21:  // !
                i += 1
                let n = number()
                guard i < end else { break }
                let s = bytes[i]; i += 1
                try paint(s - 0x3F, count: n)
            case 0x24: x = 0; i += 1                  // $
            case 0x2D: x = 0; band += 1; i += 1       // -
            case 0x3F...0x7E: try paint(c - 0x3F, count: 1); i += 1
            default: i += 1                           // line breaks and the like are ignored
            }
        }
        return image
    }

    /// PSNR (dB) against an RGB frame of the same size; painted everywhere is required.
    package func psnr(against frame: OpaqueFrame) -> Double? {
        guard frame.size.width == width, frame.size.height == height else { return nil }
        var se = 0.0
        for (k, p) in pixels.enumerated() {
            guard let p else { return nil }
            let r = Double(p.0) - Double(frame.rgb[k * 3]), g = Double(p.1) - Double(frame.rgb[k * 3 + 1])
            let b = Double(p.2) - Double(frame.rgb[k * 3 + 2])
            se += r * r + g * g + b * b
        }
        guard se > 0 else { return .infinity }
        let mse = se / Double(pixels.count * 3)
        return 10 * (log(255 * 255 / mse) / log(10.0))
    }
}
