/// Scales canvases to the render size: exact area average in linear light, or pixel
/// replication when the target is an integer multiple of the canvas (pixel art stays crisp).
///
/// Area average: each output pixel is the mean of the source area it covers, every source pixel
/// weighted by its exact overlap (integer arithmetic, so weights sum to 1), colours averaged in
/// linear light and weighted by alpha (a transparent pixel contributes no colour). Moving content
/// therefore changes output pixels smoothly instead of flickering as point samples would.
///
/// The filter is separable: each source row is reduced horizontally once (a row straddling two
/// output rows is reused), then added to its output rows with their vertical weights. Weights are computed per call (a few
/// hundred floats); the hot loops run on raw pointers. Mild reductions in linear light (at
/// most `mildTaps` source pixels an output pixel per axis) take `RowResampler`'s fused loop.
package struct AreaAverageScaler: FrameScaler {
    /// What is averaged.
    package enum Light: Sendable {
        /// Linear light (the default: averages keep the area's light).
        case linear
        /// sRGB code values, as most image tools average (the symbol encoder's default: see `SymbolEncoder`).
        case codeValues
    }

    /// What is averaged.
    package let light: Light

    /// How enlargements by a fraction are made (nil: the area average, i.e. a sharp box filter).
    package let enlarger: Enlarger?

    /// A scaler averaging `light`; enlargements by a fraction go through `enlarger`.
    package init(light: Light = .linear, enlarger: Enlarger? = Enlarger()) { self.light = light; self.enlarger = enlarger }

    /// Scales `canvas` to `size` (each output pixel averages the area it covers).
    package func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        let w = max(1, size.width), h = max(1, size.height)
        let out = [UInt8](unsafeUninitializedCapacity: w * h * 4) { buf, n in
            scale(canvas, width: w, height: h, into: buf.baseAddress!)
            n = w * h * 4
        }
        return ScaledFrame(index: index, size: RenderSize(width: w, height: h), pixels: out)
    }

    /// Scales `canvas` to `width`×`height` into `dst` (`width`·`height`·4 bytes): a buffer the
    /// caller reuses from frame to frame.
    package func scale(_ canvas: Canvas, width w: Int, height h: Int, into dst: UnsafeMutablePointer<UInt8>) {
        if let (xk, yk) = fusedKernels(canvas, width: w, height: h) {
            RowResampler.resample(canvas, xk: xk, yk: yk, width: w, height: h, into: dst)
        } else if w % canvas.width == 0 && h % canvas.height == 0 {
            Self.replicate(canvas, width: w, height: h, into: dst)
        } else if let enlarger, w >= canvas.width && h >= canvas.height {
            enlarger.enlarge(canvas, width: w, height: h, into: dst)
        } else {
            Self.areaAverage(canvas, width: w, height: h, light: light, into: dst)
        }
    }

    /// Flattens one row of `width` RGBA pixels (output row `y`) to RGB: `rgb` may be the RGBA
    /// row itself (each pixel written no later than it is read).
    package typealias RowFlattener = @Sendable (_ rgba: UnsafePointer<UInt8>, _ y: Int, _ rgb: UnsafeMutablePointer<UInt8>) -> Void

    /// Scales `canvas` as `scale(_:width:height:into:)` does, but leaves RGB at `dst` (3 bytes a
    /// pixel, rows packed; `dst` holds `width`·`height`·4 bytes all the same): rows of opaque
    /// pixels are written as RGB by the resampling loop itself, the others are handed to
    /// `flatten` (what the sixel output does after scaling, without a pass over opaque frames).
    ///
    /// `halves`: the lower half of the rows is resampled by a second thread meanwhile (the
    /// same bytes; for a first frame, with nothing on screen yet and a core to spare), and
    /// `flatten` may then be called from both at once.
    package func scale(_ canvas: Canvas, width w: Int, height h: Int, intoRGB dst: UnsafeMutablePointer<UInt8>,
                       halves: Bool = false, flatten: RowFlattener) {
        if let (xk, yk) = fusedKernels(canvas, width: w, height: h) {
            withoutActuallyEscaping(flatten) { flatten in
                guard halves && h >= 2 else {
                    RowResampler.resample(canvas, xk: xk, yk: yk, width: w, height: h, into: dst, rgb: flatten)
                    return
                }
                let split = h / 2
                let lower = LowerRows(canvas: canvas, xk: xk, yk: yk, dst: dst, flatten: flatten)
                SideThread.run({
                    RowResampler.resample(lower.canvas, xk: lower.xk, yk: lower.yk, width: w, height: h, into: lower.dst,
                                          rgb: lower.flatten, rows: split..<h)
                }, alongside: {
                    RowResampler.resample(canvas, xk: xk, yk: yk, width: w, height: h, into: dst, rgb: flatten,
                                          rows: 0..<split)
                })
            }
        } else {
            scale(canvas, width: w, height: h, into: dst)
            // In place, row by row: row y's RGB ends no later than its RGBA.
            for y in 0..<h { flatten(dst + y * w * 4, y, dst + y * w * 3) }
        }
    }

    /// An output row (RGB, `width`·3 bytes, valid during the call) and its index; false stops
    /// the scaling (the rows after it are not made).
    package typealias RowSink = (_ rgb: UnsafePointer<UInt8>, _ y: Int) -> Bool

    /// True when `scaleRows` can make `canvas` at `width`×`height` (the fused loop's paths).
    package func scalesRows(_ canvas: Canvas, width w: Int, height h: Int) -> Bool {
        fusedKernels(canvas, width: w, height: h) != nil
    }

    /// Scales `canvas` as `scale(_:width:height:intoRGB:flatten:)` does, but row by row in
    /// `rowBuffer` (`width`·4 bytes), each RGB row handed to `row` top to bottom: no buffer of
    /// the frame's size, until `row` returns false. Only where `scalesRows` is true (else
    /// nothing is done).
    package func scaleRows(_ canvas: Canvas, width w: Int, height h: Int, rowBuffer: UnsafeMutablePointer<UInt8>,
                           flatten: RowFlattener, row: RowSink) {
        guard let (xk, yk) = fusedKernels(canvas, width: w, height: h) else { return }
        withoutActuallyEscaping(flatten) { flatten in
            withoutActuallyEscaping(row) { row in
                RowResampler.resample(canvas, xk: xk, yk: yk, width: w, height: h, into: rowBuffer, rgb: flatten, row: row)
            }
        }
    }

    /// What the second thread of `scale(_:width:height:intoRGB:halves:flatten:)` reads and
    /// writes. @unchecked Sendable: the canvas and the taps are only read; of `dst` the second
    /// thread writes only the lower half's RGB rows (and the RGBA rows after them), which the
    /// first never touches; both are done with it when `SideThread.run` returns.
    private struct LowerRows: @unchecked Sendable {
        let canvas: Canvas
        let xk: KernelWeights, yk: KernelWeights
        let dst: UnsafeMutablePointer<UInt8>
        let flatten: RowFlattener
    }

    /// The taps when `RowResampler` does the scaling: bilinear enlargement by a fraction, or a
    /// mild reduction in linear light; nil for the other paths.
    private func fusedKernels(_ canvas: Canvas, width w: Int, height h: Int) -> (KernelWeights, KernelWeights)? {
        let cw = canvas.width, ch = canvas.height
        if w % cw == 0 && h % ch == 0 { return nil }
        if let enlarger, w >= cw && h >= ch {
            guard enlarger.filter == .bilinear else { return nil }
            return (KernelWeights(source: cw, target: w, filter: .bilinear), KernelWeights(source: ch, target: h, filter: .bilinear))
        }
        guard light == .linear, let xk = KernelWeights(area: cw, target: w, maxTaps: Self.mildTaps),
              let yk = KernelWeights(area: ch, target: h, maxTaps: Self.mildTaps) else { return nil }
        return (xk, yk)
    }

    /// Reductions where an output pixel covers at most this many source pixels on each axis
    /// (by up to 2: a 1280-pixel frame in 1200 pixels, as --fill does) go through
    /// `RowResampler`, the loop of the enlargements; larger ones keep `areaAverage`.
    static let mildTaps = 3

    /// Nearest neighbour for integer factors (including 1: a plain copy).
    static func replicate(_ canvas: Canvas, width w: Int, height h: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: w * h * 4) { buf, n in
            replicate(canvas, width: w, height: h, into: buf.baseAddress!)
            n = w * h * 4
        }
    }

    static func replicate(_ canvas: Canvas, width w: Int, height h: Int, into out: UnsafeMutablePointer<UInt8>) {
        let fx = w / canvas.width, fy = h / canvas.height
        do {
            let src = UnsafeRawPointer(canvas.pixels.baseAddress!).assumingMemoryBound(to: UInt32.self)
            let dst = UnsafeMutableRawPointer(out).assumingMemoryBound(to: UInt32.self)
            for sy in 0..<canvas.height {
                let row = dst + sy * fy * w
                let s = src + sy * canvas.width
                var d = row
                for sx in 0..<canvas.width {
                    let p = s[sx]
                    for _ in 0..<fx { d.pointee = p; d += 1 }
                }
                for k in 1..<max(fy, 1) { (row + k * w).update(from: row, count: w) }
            }
        }
    }

    static func areaAverage(_ canvas: Canvas, width w: Int, height h: Int, light: Light = .linear) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: w * h * 4) { buf, n in
            areaAverage(canvas, width: w, height: h, light: light, into: buf.baseAddress!)
            n = w * h * 4
        }
    }

    static func areaAverage(_ canvas: Canvas, width w: Int, height h: Int, light: Light = .linear,
                            into dst: UnsafeMutablePointer<UInt8>) {
        let xw = AxisWeights(source: canvas.width, target: w)
        let yw = AxisWeights(source: canvas.height, target: h)
        let tables = SRGBTables.shared
        let codeValues = light == .codeValues
        let lin = codeValues ? tables.unit : tables.toLinear
        // acc: the output row being summed; row: one source row reduced horizontally (kept,
        // because a source row on an output-row boundary serves two output rows).
        let acc = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w)
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w)
        defer { acc.deallocate(); row.deallocate() }
        var rowIndex = -1
        let srcBase = canvas.pixels.baseAddress!
        let srcRowBytes = canvas.width * 4
        do {
            xw.withPointers { xs, xc, xo, xwt in
                yw.withPointers { ys, yc, yo, ywt in
                    for oy in 0..<h {
                        acc.update(repeating: .zero, count: w)
                        let yOff = Int(yo[oy])
                        for k in 0..<Int(yc[oy]) {
                            let sy = Int(ys[oy]) + k
                            if sy != rowIndex {
                                // (r·a, g·a, b·a, a) in linear light, summed over each output
                                // column's footprint.
                                let src = srcBase + sy * srcRowBytes
                                for ox in 0..<w {
                                    var sum = SIMD4<Float>.zero
                                    let xOff = Int(xo[ox])
                                    var p = src + Int(xs[ox]) * 4
                                    for j in 0..<Int(xc[ox]) {
                                        let a = Float(p[3]) * xwt[xOff + j]
                                        sum += SIMD4(lin[Int(p[0])], lin[Int(p[1])], lin[Int(p[2])], 1) * a
                                        p += 4
                                    }
                                    row[ox] = sum
                                }
                                rowIndex = sy
                            }
                            let wy = ywt[yOff + k]
                            for ox in 0..<w { acc[ox] += row[ox] * wy }
                        }
                        let out = dst + oy * w * 4
                        for ox in 0..<w {
                            let q = acc[ox], o = out + ox * 4
                            let a = q[3]
                            if a < 0.5 {   // rounds to alpha 0: fully transparent
                                o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0
                            } else {
                                let inv = 1 / a
                                if codeValues {
                                    let v = (q * (255 * inv) + 0.5).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                                    o[0] = UInt8(v[0]); o[1] = UInt8(v[1]); o[2] = UInt8(v[2])
                                } else {
                                    o[0] = tables.srgb(fromLinear: q[0] * inv)
                                    o[1] = tables.srgb(fromLinear: q[1] * inv)
                                    o[2] = tables.srgb(fromLinear: q[2] * inv)
                                }
                                o[3] = UInt8(min(255, a + 0.5))
                            }
                        }
                    }
                }
            }
        }
    }
}

extension KernelWeights {
    /// The area average's coverage weights (`AxisWeights`) as a fixed number of taps, the
    /// most any output pixel has (padded with weight 0 on its last source pixel); nil if that
    /// is more than `maxTaps`.
    init?(area n: Int, target m: Int, maxTaps: Int) {
        let a = AxisWeights(source: n, target: m)
        guard let t = a.count.max(), t <= maxTaps else { return nil }
        taps = Int(t)
        index = [Int32](repeating: 0, count: m * taps)
        weight = [Float](repeating: 0, count: m * taps)
        for i in 0..<m {
            let c = Int(a.count[i]), start = Int(a.start[i]), off = Int(a.offset[i])
            for k in 0..<taps {
                index[i * taps + k] = Int32(start + min(k, c - 1))
                weight[i * taps + k] = k < c ? a.weights[off + k] : 0
            }
        }
    }
}

/// Per-axis coverage weights: output pixel i covers source pixels start[i] ..< start[i]+count[i]
/// with weights[offset[i] + k] (exact overlaps divided by the footprint, summing to 1).
struct AxisWeights {
    var start: [Int32] = []
    var count: [Int32] = []
    var offset: [Int32] = []
    var weights: [Float] = []

    init(source n: Int, target m: Int) {
        start.reserveCapacity(m); count.reserveCapacity(m); offset.reserveCapacity(m)
        weights.reserveCapacity(m * (n / m + 2))
        // In units of 1/m source pixels: output i spans [i·n, (i+1)·n), source j spans [j·m, (j+1)·m).
        for i in 0..<m {
            let lo = i * n, hi = (i + 1) * n
            let j0 = lo / m, j1 = (hi + m - 1) / m
            start.append(Int32(j0)); count.append(Int32(j1 - j0)); offset.append(Int32(weights.count))
            for j in j0..<j1 {
                let overlap = min((j + 1) * m, hi) - max(j * m, lo)
                weights.append(Float(overlap) / Float(n))
            }
        }
    }

    func withPointers<R>(_ body: (UnsafePointer<Int32>, UnsafePointer<Int32>, UnsafePointer<Int32>, UnsafePointer<Float>) -> R) -> R {
        start.withUnsafeBufferPointer { s in
            count.withUnsafeBufferPointer { c in
                offset.withUnsafeBufferPointer { o in
                    weights.withUnsafeBufferPointer { w in
                        body(s.baseAddress!, c.baseAddress!, o.baseAddress!, w.baseAddress!)
                    }
                }
            }
        }
    }
}
