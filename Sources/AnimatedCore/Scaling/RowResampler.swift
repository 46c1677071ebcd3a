/// The separable resampling loop behind bilinear enlargement (`Enlarger`) and mild area
/// reductions (`AreaAverageScaler`), the scaling `--fill` does to every frame. Both are a few
/// taps per axis with weights that are never negative, so every output value is a convex
/// combination of source values: it needs no clamping, which this loop relies on.
///
/// Each source row is converted once to premultiplied linear light and filtered horizontally into
/// a ring of rows (one more than the vertical taps, so a row two output rows share is kept), and
/// each output row is the weighted sum of its ring rows converted straight to sRGB bytes: no
/// accumulator row is zeroed, added to and read back. A source row whose pixels are all opaque
/// is decoded without premultiplying; an output row made only of such rows is written without
/// the division by alpha (its alpha is 1 up to rounding of the weights, which the division
/// would only undo).
///
/// The sums are the same float operations in the same order as the general loops (`0 + x` is
/// `x`); what differs is the rounding to the table index (to nearest, where the general loops
/// add ½ and truncate) and the division skipped for opaque rows. On the benchmark videos the
/// bytes are the same; with translucent pixels a few bytes in ten thousand differ, by 1
/// (RenderRowResamplerTests compares the two loops).
struct RowResampler {
    /// Resamples `canvas` to `width`×`height` into `dst` (RGBA, straight alpha, sRGB) with the
    /// taps of `xk` and `yk`, whose weights must be ≥ 0 and sum to 1 for each output pixel.
    /// With `rgb`, `dst` gets RGB rows instead (3 bytes a pixel): opaque rows written here,
    /// the others written as RGBA at their place in a `width`·`height`·4 buffer, then flattened
    /// by `rgb` to their RGB place. With `rgb` and `row` too, `dst` is one row (`width`·4 bytes):
    /// each output row is made there and handed to `row` (RGB, and its index), so no frame of
    /// the output's size exists; `row` returns false to stop (no later row is made).
    ///
    /// `rows`: the output rows made (all by default; each row is the same whichever call makes
    /// it). With `rgb`, a range that ends before the last row leaves the rows after it to
    /// another call, maybe on another thread at once: its translucent rows are made as RGBA in
    /// a row of their own rather than at their place in `dst`, which overlaps the RGB rows that
    /// follow.
    static func resample(_ canvas: Canvas, xk: KernelWeights, yk: KernelWeights, width w: Int, height h: Int,
                         into dst: UnsafeMutablePointer<UInt8>, rgb: AreaAverageScaler.RowFlattener? = nil,
                         rows made: Range<Int>? = nil, row sink: AreaAverageScaler.RowSink? = nil) {
        let made = made ?? 0..<h
        let channels = rgb == nil ? 4 : 3
        let ownRow: UnsafeMutablePointer<UInt8>? = rgb != nil && made.upperBound < h ? .allocate(capacity: w * 4) : nil
        defer { ownRow?.deallocate() }
        let cw = canvas.width
        let tables = SRGBTables.shared
        let lin = tables.toLinearSteps
        let ring = yk.taps + 1
        let src = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: cw)          // one source row, linear premultiplied
        let rows = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: ring * w)   // horizontally filtered rows
        let tags = UnsafeMutablePointer<Int>.allocate(capacity: ring)
        let opaque = UnsafeMutablePointer<Bool>.allocate(capacity: ring)
        tags.initialize(repeating: -1, count: ring)
        opaque.initialize(repeating: false, count: ring)
        let rowPointers = UnsafeMutablePointer<UnsafePointer<SIMD4<Float>>>.allocate(capacity: yk.taps)
        let indices = UnsafeMutablePointer<SIMD4<UInt32>>.allocate(capacity: w)
        defer {
            src.deallocate(); rows.deallocate(); tags.deallocate(); opaque.deallocate(); rowPointers.deallocate()
            indices.deallocate()
        }
        let base = canvas.pixels.baseAddress!
        let xt = xk.taps, yt = yk.taps
        let xw = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w * xt)
        defer { xw.deallocate() }
        xk.withPointers { xs, weights in
            for i in 0..<(w * xt) { xw[i] = SIMD4(repeating: weights[i]) }
            yk.withPointers { ys, yw in
                for oy in made {
                    var allOpaque = true
                    for k in 0..<yt {
                        let sy = Int(ys[oy * yt + k])
                        let slot = sy % ring
                        let row = rows + slot * w
                        if tags[slot] != sy {
                            opaque[slot] = decode(base + sy * cw * 4, count: cw, lin: lin, into: src)
                            filter(src, taps: xt, index: xs, weight: xw, count: w, into: row)
                            tags[slot] = sy
                        }
                        // A tap of weight 0 (an edge, or padding) does not make the row translucent.
                        if yw[oy * yt + k] != 0 { allOpaque = allOpaque && opaque[slot] }
                        rowPointers[k] = UnsafePointer(row)
                    }
                    let out = sink == nil ? dst + oy * w * channels : dst
                    let wy = yw + oy * yt
                    if allOpaque {
                        writeOpaque(rowPointers, weights: wy, taps: yt, count: w, tables: tables, indices: indices,
                                    channels: channels, into: out)
                    } else if let rgb {
                        // Written where the RGBA frame would have it: at or after its RGB place.
                        let rgba = sink == nil ? ownRow ?? dst + oy * w * 4 : dst
                        writeTranslucent(rowPointers, weights: wy, taps: yt, count: w, tables: tables, into: rgba)
                        rgb(rgba, oy, out)
                    } else {
                        writeTranslucent(rowPointers, weights: wy, taps: yt, count: w, tables: tables, into: out)
                    }
                    if let sink, !sink(out, oy) { break }
                }
            }
        }
    }

    /// One source row to linear light in `toSRGB` index units (`lin`: `toLinearSteps`),
    /// premultiplied by alpha (0...1, the last lane); true if every pixel is
    /// opaque (then the multiplication by 1 is skipped: the same values).
    @inline(never)   // a function of its own: registers for its loop alone
    static func decode(_ p: UnsafePointer<UInt8>, count n: Int, lin: UnsafePointer<Float>,
                       into src: UnsafeMutablePointer<SIMD4<Float>>) -> Bool {
        var alphas: UInt8 = 255
        for x in 0..<n { alphas &= p[x * 4 + 3] }
        var q = p
        if alphas == 255 {
            for x in 0..<n {
                src[x] = SIMD4(lin[Int(q[0])], lin[Int(q[1])], lin[Int(q[2])], 1)
                q += 4
            }
            return true
        }
        for x in 0..<n {
            let a = Float(q[3]) * (1 / 255)
            src[x] = SIMD4(lin[Int(q[0])] * a, lin[Int(q[1])] * a, lin[Int(q[2])] * a, a)
            q += 4
        }
        return false
    }

    /// The horizontal pass: output pixel i of the row is Σ src[index[i·taps + k]]·weight[i·taps + k]
    /// (each weight in all four lanes: no shuffle in the loop).
    @inline(never)   // a function of its own: registers for its loop alone
    static func filter(_ src: UnsafePointer<SIMD4<Float>>, taps t: Int, index xs: UnsafePointer<Int32>,
                       weight xw: UnsafePointer<SIMD4<Float>>, count w: Int, into row: UnsafeMutablePointer<SIMD4<Float>>) {
        switch t {
        case 2:
            for ox in 0..<w {
                let s = xs + ox * 2, wt = xw + ox * 2
                row[ox] = src[Int(s[0])] * wt[0] + src[Int(s[1])] * wt[1]
            }
        case 3:
            for ox in 0..<w {
                let s = xs + ox * 3, wt = xw + ox * 3
                row[ox] = src[Int(s[0])] * wt[0] + src[Int(s[1])] * wt[1] + src[Int(s[2])] * wt[2]
            }
        default:
            for ox in 0..<w {
                let s = xs + ox * t, wt = xw + ox * t
                var sum = src[Int(s[0])] * wt[0]
                for j in 1..<t { sum += src[Int(s[j])] * wt[j] }
                row[ox] = sum
            }
        }
    }

    /// Σ rows[k][ox]·weights[k]: the vertical pass for one output pixel.
    @inline(__always)
    static func sum(_ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, weights wy: UnsafePointer<Float>, taps t: Int,
                    at ox: Int) -> SIMD4<Float> {
        var q = rows[0][ox] * wy[0]
        for k in 1..<t { q += rows[k][ox] * wy[k] }
        return q
    }

    /// Linear light in index units (≥ 0) to the `SRGBTables.toSRGB` index, rounded to nearest: adding 2²³
    /// leaves the integer part in the float's low mantissa bits (exact below 2²³). The mask
    /// keeps any input in the padded table: values past 1 (rounding of the weights) read 255.
    struct TableIndex {
        let magic = SIMD4<Float>(repeating: 8_388_608)
        let mask = SIMD4<UInt32>(repeating: SRGBTables.paddedMask)

        @inline(__always)
        func callAsFunction(_ l: SIMD4<Float>) -> SIMD4<UInt32> {
            unsafeBitCast(l + magic, to: SIMD4<UInt32>.self) & mask
        }
    }

    /// An output row of opaque pixels: alpha 255 (`channels` 4) or RGB (3), no division. Two passes: the sums to table
    /// indices on whole vectors into `indices`, then the lookups (a loop mixing the two spends
    /// its time moving single lanes between vector and integer registers).
    @inline(never)   // a function of its own: registers for its loop alone
    static func writeOpaque(_ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, weights wy: UnsafePointer<Float>,
                            taps t: Int, count w: Int, tables: SRGBTables, indices: UnsafeMutablePointer<SIMD4<UInt32>>,
                            channels: Int, into out: UnsafeMutablePointer<UInt8>) {
        let tableIndex = TableIndex()
        switch t {
        case 2:
            let r0 = rows[0], r1 = rows[1], w0 = wy[0], w1 = wy[1]
            for ox in 0..<w { indices[ox] = tableIndex(r0[ox] * w0 + r1[ox] * w1) }
        case 3:
            let r0 = rows[0], r1 = rows[1], r2 = rows[2], w0 = wy[0], w1 = wy[1], w2 = wy[2]
            for ox in 0..<w { indices[ox] = tableIndex(r0[ox] * w0 + r1[ox] * w1 + r2[ox] * w2) }
        default:
            for ox in 0..<w { indices[ox] = tableIndex(sum(rows, weights: wy, taps: t, at: ox)) }
        }
        let toSRGB = tables.toSRGB
        let o = UnsafeMutableRawPointer(out)
        let ix = UnsafeRawPointer(indices).assumingMemoryBound(to: UInt32.self)
        if channels == 3 {
            var p = out
            for ox in 0..<w {
                let i = ix + ox * 4
                p[0] = toSRGB[Int(i[0])]; p[1] = toSRGB[Int(i[1])]; p[2] = toSRGB[Int(i[2])]
                p += 3
            }
            return
        }
        for ox in 0..<w {
            let i = ix + ox * 4
            let v = UInt32(toSRGB[Int(i[0])]) | UInt32(toSRGB[Int(i[1])]) << 8 | UInt32(toSRGB[Int(i[2])]) << 16 | 0xFF00_0000
            o.storeBytes(of: v.littleEndian, toByteOffset: ox * 4, as: UInt32.self)
        }
    }

    /// An output row with translucent pixels: back to straight alpha (pixels that round to
    /// alpha 0 are transparent black, as in the general loops).
    static func writeTranslucent(_ rows: UnsafePointer<UnsafePointer<SIMD4<Float>>>, weights wy: UnsafePointer<Float>,
                                 taps t: Int, count w: Int, tables: SRGBTables, into out: UnsafeMutablePointer<UInt8>) {
        let toSRGB = tables.toSRGB
        let tableIndex = TableIndex()
        for ox in 0..<w {
            let q = sum(rows, weights: wy, taps: t, at: ox), o = out + ox * 4
            let a = min(q[3], 1)
            if a < 0.5 / 255 {
                o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0
                continue
            }
            let i = tableIndex(a == 1 ? q : q * (1 / a))   // the alpha lane is not used
            o[0] = toSRGB[Int(i[0])]; o[1] = toSRGB[Int(i[1])]; o[2] = toSRGB[Int(i[2])]
            o[3] = UInt8(a * 255 + 0.5)
        }
    }
}
