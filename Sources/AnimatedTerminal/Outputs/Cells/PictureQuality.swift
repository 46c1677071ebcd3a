#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// An opaque 8-bit sRGB image, 3 bytes per pixel, rows packed.
package struct RGBImage: Sendable, Equatable {
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// R, G, B per pixel.
    package var pixels: [UInt8]

    /// An image of `pixels` (`width × height × 3` bytes).
    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3)
        self.width = width; self.height = height; self.pixels = pixels
    }
}

/// Picture quality of cell output: what the terminal shows is rasterised back to pixels
/// (each glyph's coverage mask in its two colours) and compared with the source image
/// area-averaged to the same raster.
///
/// The raster gives each cell `cellWidth × cellHeight` = 6×12 pixels: square pixels for the
/// usual 1:2 cell, and a whole number of them for every sub-pixel of every symbol set (half
/// 6×6, quadrant 3×6, sextant 3×4, octant 3×3), so no glyph is rasterised approximately.
package enum PictureQuality {
    /// Raster pixels per cell, across and down.
    package static let cellWidth = 6, cellHeight = 12

    /// The source as the raster of a `columns × rows` cell area shows it: area average in
    /// linear light, transparent parts over `background` (0xRRGGBB).
    package static func reference(_ canvas: Canvas, columns: Int, rows: Int, background: UInt32 = 0) -> RGBImage {
        let w = columns * cellWidth, h = rows * cellHeight
        let scaled = AreaAverageScaler().scale(canvas, index: 0, to: RenderSize(width: w, height: h))
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let bgc = [UInt8(background >> 16 & 0xFF), UInt8(background >> 8 & 0xFF), UInt8(background & 0xFF)]
        for i in 0..<(w * h) {
            let a = UInt32(scaled.pixels[i * 4 + 3])
            for c in 0..<3 {
                let v = UInt32(scaled.pixels[i * 4 + c]) * a + UInt32(bgc[c]) * (255 - a)
                out[i * 3 + c] = UInt8((v + 127) / 255)
            }
        }
        return RGBImage(width: w, height: h, pixels: out)
    }

    /// Rasterises a screen; characters that are not block glyphs of the symbol sets count as
    /// background (returned in `unknown`).
    package static func rasterize(_ screen: TerminalScreen) -> (image: RGBImage, unknown: Int) {
        var unknown = 0
        let image = raster(columns: screen.columns, rows: screen.rows) { i in
            let cell = screen.cells[i]
            guard let (set, mask) = SymbolSet.coverage(of: cell.scalar) else {
                unknown += 1
                return (.half, 0, cell.foreground, cell.background)
            }
            return (set, mask, cell.foreground, cell.background)
        }
        return (image, unknown)
    }

    /// Rasterises cells as a terminal would show them in `mode` (palette indices in xterm's
    /// colours), the terminal's default background being `background`.
    package static func rasterize(_ grid: CellGrid, mode: ColorMode, background: UInt32 = 0) -> RGBImage {
        func rgb(_ c: UInt32) -> UInt32 {
            if c == CellColor.terminalDefault { return background }
            return mode == .truecolor ? c : TerminalScreen.palette(Int(c))
        }
        return raster(columns: grid.columns, rows: grid.rows) { i in
            (grid.symbols, grid.glyphs[i], rgb(grid.foregrounds[i]), rgb(grid.backgrounds[i]))
        }
    }

    private static func raster(columns: Int, rows: Int,
                               cell: (Int) -> (SymbolSet, UInt8, UInt32, UInt32)) -> RGBImage {
        let w = columns * cellWidth, h = rows * cellHeight
        var px = [UInt8](repeating: 0, count: w * h * 3)
        for r in 0..<rows {
            for c in 0..<columns {
                let (set, mask, f, b) = cell(r * columns + c)
                for y in 0..<cellHeight {
                    let sy = y * set.rows / cellHeight
                    for x in 0..<cellWidth {
                        let bit = sy * set.columns + x * set.columns / cellWidth
                        let v = mask >> UInt8(bit) & 1 != 0 ? f : b
                        let o = ((r * cellHeight + y) * w + c * cellWidth + x) * 3
                        px[o] = UInt8(v >> 16 & 0xFF); px[o + 1] = UInt8(v >> 8 & 0xFF); px[o + 2] = UInt8(v & 0xFF)
                    }
                }
            }
        }
        return RGBImage(width: w, height: h, pixels: px)
    }

    /// Peak signal-to-noise ratio over the R, G and B code values, in dB (infinity when equal).
    package static func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var sum = 0.0
        for i in 0..<a.pixels.count {
            let d = Double(a.pixels[i]) - Double(b.pixels[i])
            sum += d * d
        }
        let mse = sum / Double(a.pixels.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Mean structural similarity (Wang, Bovik, Sheikh, Simoncelli 2004) of the luma
    /// (BT.601 weights on the sRGB code values): 11×11 Gaussian window, σ = 1.5,
    /// K1 = 0.01, K2 = 0.03, over the positions where the whole window fits. 1 when equal.
    package static func ssim(_ a: RGBImage, _ b: RGBImage) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        let w = a.width, h = a.height
        func luma(_ img: RGBImage) -> [Double] {
            var out = [Double](repeating: 0, count: w * h)
            for i in 0..<(w * h) {
                let r = Double(img.pixels[i * 3]), g = Double(img.pixels[i * 3 + 1]), b = Double(img.pixels[i * 3 + 2])
                out[i] = 0.299 * r + 0.587 * g + 0.114 * b
            }
            return out
        }
        let x = luma(a), y = luma(b)
        let radius = 5
        guard w > 2 * radius, h > 2 * radius else {
            return x == y ? 1 : 0
        }
        var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
        let ks = kernel.reduce(0, +)
        kernel = kernel.map { $0 / ks }
        // Separable filtering over the valid region: ow × oh outputs.
        let ow = w - 2 * radius, oh = h - 2 * radius
        func blur(_ f: (Int) -> Double) -> [Double] {
            var horizontal = [Double](repeating: 0, count: ow * h)
            for yy in 0..<h {
                for xx in 0..<ow {
                    var s = 0.0
                    for k in 0...(2 * radius) { s += kernel[k] * f(yy * w + xx + k) }
                    horizontal[yy * ow + xx] = s
                }
            }
            var out = [Double](repeating: 0, count: ow * oh)
            for yy in 0..<oh {
                for xx in 0..<ow {
                    var s = 0.0
                    for k in 0...(2 * radius) { s += kernel[k] * horizontal[(yy + k) * ow + xx] }
                    out[yy * ow + xx] = s
                }
            }
            return out
        }
        let mx = blur { x[$0] }, my = blur { y[$0] }
        let xx = blur { x[$0] * x[$0] }, yy = blur { y[$0] * y[$0] }, xy = blur { x[$0] * y[$0] }
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        var total = 0.0
        for i in 0..<(ow * oh) {
            let vx = xx[i] - mx[i] * mx[i], vy = yy[i] - my[i] * my[i], cov = xy[i] - mx[i] * my[i]
            total += ((2 * mx[i] * my[i] + c1) * (2 * cov + c2))
                / ((mx[i] * mx[i] + my[i] * my[i] + c1) * (vx + vy + c2))
        }
        return total / Double(ow * oh)
    }
}
