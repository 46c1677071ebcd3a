#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
/// Colours are compared, and averaged, in OKLab by default (`SymbolColorSpace`): measured
/// with `PictureQuality` on the benchmark images (Benchmarks/quality-bench.py) it is as good
/// as linear light or better (SSIM +0.003 to +0.005 on the photo-like and Mandelbrot images
/// with sextants and octants, equal on text and lines). The sub-pixels themselves are area
/// averages in linear light.
///
/// Transparency (`BackgroundMode.terminal`): sub-pixels less than half opaque must show the
/// terminal's background, which only a cell's background can do, so a cell with any of them
/// draws its opaque sub-pixels in their mean colour over the default background.
/// Where `SymbolEncoder` measures colour error and averages colours.
public enum SymbolColorSpace: String, Sendable, CaseIterable {
    /// Linear-light sRGB: averages keep the cell's light.
    case linear
    /// OKLab: error by perceived difference.
    case oklab
    /// sRGB code values (gamma-encoded), as most image tools compare colours.
    case srgb
}

struct SymbolEncoder {
    typealias ColorSpace = SymbolColorSpace

    let symbols: SymbolSet
    let background: BackgroundMode
    var space: ColorSpace = .oklab

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
                        fgBuf[cell] = Self.color(total / Float(n - transparent), space, tables)
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
                    if bestMask == 0 {
                        maskBuf[cell] = 0
                        let one = Self.color(total / nf, space, tables)
                        fgBuf[cell] = one; bgBuf[cell] = one
                        continue
                    }
                    var a = SIMD4<Float>.zero, na: Float = 0
                    for k in 0..<n where bestMask & (1 << k) != 0 { a += vectors[k]; na += 1 }
                    maskBuf[cell] = UInt8(bestMask)
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

/// Scales a canvas to the sub-pixel grid of a symbol set (area average in linear light) and
/// chooses each cell's glyph and colours (`SymbolEncoder`), on the frame buffer's producer
/// thread: the frame buffer keeps the cells, so replays cost nothing.
///
/// The render size is in half-block pixels, as for `AreaAverageScaler` (layout does not
/// change with the symbols): `width` columns, ⌈height/2⌉ rows, each cell covering
/// `symbols.columns × symbols.rows` sub-pixels.
public struct SymbolScaler: FrameScaler {
    /// The glyphs to choose from.
    public let symbols: SymbolSet
    /// What shows behind transparent pixels.
    public let background: BackgroundMode
    /// Where colour error is measured.
    public let colorSpace: SymbolColorSpace

    /// A scaler drawing with `symbols`.
    public init(symbols: SymbolSet, background: BackgroundMode, colorSpace: SymbolColorSpace = .oklab) {
        self.symbols = symbols; self.background = background; self.colorSpace = colorSpace
    }

    /// The cells of `canvas` for a render `size` in half-block pixels (`pixels` stays empty).
    public func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        let size = RenderSize(width: max(1, size.width), height: max(1, size.height))
        let cells = encode(canvas, size: size, space: colorSpace)
        return ScaledFrame(index: index, size: size, pixels: [], cells: cells)
    }

    /// The sub-pixel grid for a render size: the cells' width and, down, the height's share
    /// (an odd half-block height ends half-way through the last cell row).
    public func subpixelSize(for size: RenderSize) -> RenderSize {
        RenderSize(width: size.width * symbols.columns, height: max(1, (size.height * symbols.rows + 1) / 2))
    }

    func encode(_ canvas: Canvas, size: RenderSize, space: SymbolEncoder.ColorSpace) -> SymbolCells {
        let sub = subpixelSize(for: size)
        let scaled = AreaAverageScaler().scale(canvas, index: 0, to: sub)
        let encoder = SymbolEncoder(symbols: symbols, background: background, space: space)
        return scaled.pixels.withUnsafeBufferPointer {
            encoder.encode($0.baseAddress!, width: sub.width, height: sub.height,
                           columns: size.width, rows: (size.height + 1) / 2)
        }
    }
}
