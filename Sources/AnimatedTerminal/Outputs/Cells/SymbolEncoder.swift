#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// Chooses, for every cell, the glyph and the two colours that reproduce the cell's
/// sub-pixels with the least squared error.
///
/// For a split of the cell's n sub-pixels into two groups the best colours are the groups'
/// means, and the error is Σ|x|² − |S₁|²/n₁ − |S₂|²/n₂ (S: the groups' sums). So the search
/// only has to maximise |S₁|²/n₁ + |S − S₁|²/(n − n₁) over the 2ⁿ⁻¹ splits (a split and its
/// complement are the same two groups). Walking the splits in Gray-code order changes one
/// sub-pixel per step: one vector add and two dot products. That is exact and cheap for every
/// set, octants included (127 steps per cell), so there is no pruned search to get wrong.
///
/// Colours are compared in Y'CbCr of the sRGB code values by default (`SymbolColorSpace`),
/// chroma at half the weight of luma, and averaged as code values, sub-pixels included (the
/// scaler averages code values for these spaces). Measured with `PictureQuality` on the
/// benchmark images (Benchmarks/quality-bench.py, sextants): against OKLab error with sub-pixels
/// averaged in linear light (the previous default) SSIM +0.003 to +0.010 on four images, -0.001 on lines
/// (text 0.834 → 0.842, testsrc2 0.931 → 0.940, photo-like 0.953 → 0.956), PSNR within ±0.2 dB
/// except +0.6 dB on testsrc2. Why: a cell has one flat colour per group, and the flat colour
/// closest to a group of pixels, as eyes and SSIM compare them, is the mean of their
/// gamma-encoded values; the linear-light mean is brighter wherever the group holds fine dark
/// detail (thin strokes in text fade). Luma outweighs chroma because the eye resolves detail
/// in brightness about twice as finely as in colour (hence the 4:2:x chroma subsampling of
/// video); chroma weight 1 gives up 0.004 SSIM on the photo-like image, 0.2 gains 0.002 more
/// but loses 0.5 dB PSNR there.
///
/// Transparency (`BackgroundMode.terminal`): sub-pixels less than half opaque must show the
/// terminal's background, which only a cell's background can do, so a cell with any of them
/// draws its opaque sub-pixels in their mean colour over the default background.
/// Where `SymbolEncoder` measures colour error and averages colours.
package enum SymbolColorSpace: String, Sendable, CaseIterable {
    /// Linear-light sRGB: averages keep the cell's light.
    case linear
    /// OKLab: error by perceived difference (averages in linear light).
    case oklab
    /// sRGB code values (gamma-encoded), as most image tools compare colours.
    case srgb
    /// Y'CbCr (BT.601) of the sRGB code values, chroma at half weight: the default.
    case ycbcr

    /// Whether sub-pixels and the cells' colours are means of code values (else of linear light).
    package var averagesCodeValues: Bool { self == .srgb || self == .ycbcr }

    /// The weight of Cb and Cr against Y' in `ycbcr`.
    static let chromaWeight: Float = 0.5
}

struct SymbolEncoder {
    typealias ColorSpace = SymbolColorSpace

    let symbols: SymbolSet
    let background: BackgroundMode
    var space: ColorSpace = .ycbcr

    /// Encodes `pixels` (RGBA, `width` × `height`, the sub-pixel grid) into `columns` × `rows`
    /// cells; sub-pixels past the bottom edge are transparent.
    func encode(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int, columns: Int, rows: Int) -> SymbolCells {
        let n = symbols.count, sw = symbols.columns, sh = symbols.rows
        let cellCount = columns * rows
        var masks = [UInt8](repeating: 0, count: cellCount)
        var fgs = [UInt32](repeating: 0, count: cellCount)
        var bgs = [UInt32](repeating: 0, count: cellCount)
        let D = CellColor.terminalDefault
        let tables = SRGBTables.shared
        let lin = tables.toLinear
        let lab = space == .oklab ? OKLabCache() : nil
        // Means of code values are the means in srgb and ycbcr (a linear map of code values).
        let codeMeans = space.averagesCodeValues
        let colors = UnsafeMutablePointer<UInt32>.allocate(capacity: 8)
        let vectors = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 8)
        // 1/k for group sizes 1…8 (no division in the search loop).
        let inverse = UnsafeMutablePointer<Float>.allocate(capacity: 9)
        inverse[0] = 0
        for k in 1...8 { inverse[k] = 1 / Float(k) }
        defer { colors.deallocate(); vectors.deallocate(); inverse.deallocate() }
        masks.withUnsafeMutableBufferPointer { maskBuf in
        fgs.withUnsafeMutableBufferPointer { fgBuf in
        bgs.withUnsafeMutableBufferPointer { bgBuf in
            for r in 0..<rows {
                for c in 0..<columns {
                    // 1. The sub-pixels as displayed colours (background handling applied).
                    var transparent = 0
                    var allSame = true
                    // A second distinct colour and whether a third exists: a cell of two colours
                    // is drawn exactly by the split between them, without a search.
                    var second = colors[0], moreThanTwo = false
                    for k in 0..<n {
                        let x = c * sw + k % sw, y = r * sh + k / sw
                        let v: UInt32
                        if y < height {
                            // Checker squares in half-block pixel units: 2 per cell row.
                            v = background.shown(pixels + (y * width + x) * 4, x: c, y: 2 * r + (2 * (k / sw)) / sh)
                        } else {
                            v = D
                        }
                        colors[k] = v
                        if v == D { transparent += 1 }
                        if v != colors[0] {
                            if allSame { second = v; allSame = false } else if v != second { moreThanTwo = true }
                        }
                    }
                    let cell = r * columns + c
                    if allSame {
                        maskBuf[cell] = 0; fgBuf[cell] = colors[0]; bgBuf[cell] = colors[0]
                        continue
                    }
                    if !moreThanTwo {
                        // Exact: the first colour's sub-pixels in the foreground (the default
                        // colour, if any, is then the background).
                        let f = colors[0] == D ? second : colors[0]
                        var m: UInt8 = 0
                        for k in 0..<n where colors[k] == f { m |= 1 << UInt8(k) }
                        maskBuf[cell] = m; fgBuf[cell] = f; bgBuf[cell] = f == second ? D : second
                        continue
                    }
                    // 2. Vectors in the comparison space.
                    var total = SIMD4<Float>.zero
                    for k in 0..<n where colors[k] != D {
                        let v = colors[k]
                        let p: SIMD4<Float>
                        if let lab {
                            let q = lab.lab(v)
                            p = SIMD4(q[0], q[1], q[2], 0)
                        } else if space == .ycbcr {
                            p = Self.ycbcr(v)
                        } else if space == .srgb {
                            p = SIMD4(Float(v >> 16), Float(v >> 8 & 0xFF), Float(v & 0xFF), 0) * (1 / 255)
                        } else {
                            p = SIMD4(lin[Int(v >> 16)], lin[Int(v >> 8 & 0xFF)], lin[Int(v & 0xFF)], 0)
                        }
                        vectors[k] = p
                        total += p
                    }
                    if transparent > 0 {
                        var m: UInt8 = 0
                        for k in 0..<n where colors[k] != D { m |= 1 << UInt8(k) }
                        maskBuf[cell] = m
                        fgBuf[cell] = codeMeans ? Self.codeMean(colors, n, Int(m))
                            : Self.color(total / Float(n - transparent), space, tables)
                        bgBuf[cell] = D
                        continue
                    }
                    // 3. Exact search over the splits, Gray-code order (bit n−1 stays in group 2).
                    let nf = Float(n)
                    var best = (total * total).sum() / nf   // one colour
                    var bestMask = 0
                    var s1 = SIMD4<Float>.zero, n1 = 0, mask = 0
                    for i in 1..<(1 << (n - 1)) {
                        let k = i.trailingZeroBitCount
                        mask ^= 1 << k
                        if mask & (1 << k) != 0 { s1 += vectors[k]; n1 += 1 } else { s1 -= vectors[k]; n1 -= 1 }
                        let s2 = total - s1
                        let q = (s1 * s1).sum() * inverse[n1] + (s2 * s2).sum() * inverse[n - n1]
                        // Strictly better by a margin: equal splits keep the simpler cell.
                        if q > best * (1 + 1e-6) + 1e-9 { best = q; bestMask = mask }
                    }
                    let all = (1 << n) - 1
                    if bestMask == 0 {
                        maskBuf[cell] = 0
                        let one = codeMeans ? Self.codeMean(colors, n, all) : Self.color(total / nf, space, tables)
                        fgBuf[cell] = one; bgBuf[cell] = one
                        continue
                    }
                    maskBuf[cell] = UInt8(bestMask)
                    if codeMeans {
                        fgBuf[cell] = Self.codeMean(colors, n, bestMask)
                        bgBuf[cell] = Self.codeMean(colors, n, all ^ bestMask)
                        continue
                    }
                    var a = SIMD4<Float>.zero, na: Float = 0
                    for k in 0..<n where bestMask & (1 << k) != 0 { a += vectors[k]; na += 1 }
                    fgBuf[cell] = Self.color(a / na, space, tables)
                    bgBuf[cell] = Self.color((total - a) / (nf - na), space, tables)
                }
            }
        }
        }
        }
        return SymbolCells(symbols: symbols, columns: columns, rows: rows, masks: masks,
                           foregrounds: fgs, backgrounds: bgs)
    }

    /// Y'CbCr (BT.601, full range, scaled to 0…1) of a 0xRRGGBB colour, chroma weighted.
    @inline(__always)
    static func ycbcr(_ v: UInt32) -> SIMD4<Float> {
        let r = Float(v >> 16), g = Float(v >> 8 & 0xFF), b = Float(v & 0xFF)
        let w = SymbolColorSpace.chromaWeight * (1 / 255)
        return SIMD4(0.299 * r + 0.587 * g + 0.114 * b, 0, 0, 0) * (1 / 255)
            + SIMD4(0, -0.168736 * r - 0.331264 * g + 0.5 * b, 0.5 * r - 0.418688 * g - 0.081312 * b, 0) * w
    }

    /// The mean code values (rounded) of the colours in `group` (bits over `colors[0..<n]`, not empty).
    @inline(__always)
    static func codeMean(_ colors: UnsafeMutablePointer<UInt32>, _ n: Int, _ group: Int) -> UInt32 {
        var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0, count: UInt32 = 0
        for k in 0..<n where group & (1 << k) != 0 {
            let v = colors[k]
            r += v >> 16; g += v >> 8 & 0xFF; b += v & 0xFF; count += 1
        }
        let half = count / 2
        return ((r + half) / count) << 16 | ((g + half) / count) << 8 | (b + half) / count
    }

    /// A mean in the comparison space back to 0xRRGGBB.
    @inline(__always)
    static func color(_ v: SIMD4<Float>, _ space: ColorSpace, _ t: SRGBTables) -> UInt32 {
        if space == .srgb {
            let c = (v * 255 + 0.5).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
            return UInt32(c[0]) << 16 | UInt32(c[1]) << 8 | UInt32(c[2])
        }
        var l = v
        if space == .oklab { l = linear(fromOKLab: v) }
        return UInt32(t.srgb(fromLinear: l[0])) << 16 | UInt32(t.srgb(fromLinear: l[1])) << 8
            | UInt32(t.srgb(fromLinear: l[2]))
    }

    /// OKLab to linear sRGB (Björn Ottosson, 2020).
    static func linear(fromOKLab v: SIMD4<Float>) -> SIMD4<Float> {
        let L = v[0], a = v[1], b = v[2]
        let l_ = L + 0.3963377774 * a + 0.2158037573 * b
        let m_ = L - 0.1055613458 * a - 0.0638541728 * b
        let s_ = L - 0.0894841775 * a - 1.2914855480 * b
        let l = l_ * l_ * l_, m = m_ * m_ * m_, s = s_ * s_ * s_
        return SIMD4(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
                     -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
                     -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s, 0)
    }
}

/// Scales a canvas to the sub-pixel grid of a symbol set (area average, of code values or linear
/// light as the colour space asks: see `SymbolEncoder`) and
/// chooses each cell's glyph and colours (`SymbolEncoder`), on the frame buffer's producer
/// thread: the frame buffer keeps the cells, so replays cost nothing.
///
/// The render size is in half-block pixels, as for `AreaAverageScaler` (layout does not
/// change with the symbols): `width` columns, ⌈height/2⌉ rows, each cell covering
/// `symbols.columns × symbols.rows` sub-pixels.
package struct SymbolScaler: FrameScaler {
    /// The glyphs to choose from.
    package let symbols: SymbolSet
    /// What shows behind transparent pixels.
    package let background: BackgroundMode
    /// Where colour error is measured.
    package let colorSpace: SymbolColorSpace

    /// A scaler drawing with `symbols`.
    package init(symbols: SymbolSet, background: BackgroundMode, colorSpace: SymbolColorSpace = .ycbcr) {
        self.symbols = symbols; self.background = background; self.colorSpace = colorSpace
    }

    /// The cells of `canvas` for a render `size` in half-block pixels (`pixels` stays empty).
    package func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        let size = RenderSize(width: max(1, size.width), height: max(1, size.height))
        let cells = encode(canvas, size: size, space: colorSpace)
        return ScaledFrame(index: index, size: size, pixels: [], cells: cells)
    }

    /// The sub-pixel grid for a render size: the cells' width and, down, the height's share
    /// (an odd half-block height ends half-way through the last cell row).
    package func subpixelSize(for size: RenderSize) -> RenderSize {
        RenderSize(width: size.width * symbols.columns, height: max(1, (size.height * symbols.rows + 1) / 2))
    }

    func encode(_ canvas: Canvas, size: RenderSize, space: SymbolEncoder.ColorSpace) -> SymbolCells {
        let sub = subpixelSize(for: size)
        let scaled = AreaAverageScaler(light: space.averagesCodeValues ? .codeValues : .linear).scale(canvas, index: 0, to: sub)
        let encoder = SymbolEncoder(symbols: symbols, background: background, space: space)
        return scaled.pixels.withUnsafeBufferPointer {
            encoder.encode($0.baseAddress!, width: sub.width, height: sub.height,
                           columns: size.width, rows: (size.height + 1) / 2)
        }
    }
}
