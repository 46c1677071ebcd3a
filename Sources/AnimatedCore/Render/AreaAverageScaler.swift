/// Scales canvases to the render size: exact area average in linear light, or pixel
/// replication when the target is an integer multiple of the canvas (pixel art stays crisp).
///
/// Area average: each output pixel is the mean of the source area it covers, every source pixel
/// weighted by its exact overlap (integer arithmetic, so weights sum to 1), colours averaged in
/// linear light and weighted by alpha (a transparent pixel contributes no colour). Moving content
/// therefore changes output pixels smoothly instead of flickering as point samples would.
///
/// The filter is separable: per output row, each covered source row is first reduced
/// horizontally, then added with its vertical weight. Weights are computed per call (a few
/// hundred floats); the hot loops run on raw pointers.
public struct AreaAverageScaler: FrameScaler {
    public init() {}

    public func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        let w = max(1, size.width), h = max(1, size.height)
        let out: [UInt8]
        if w % canvas.width == 0 && h % canvas.height == 0 {
            out = Self.replicate(canvas, width: w, height: h)
        } else {
            out = Self.areaAverage(canvas, width: w, height: h)
        }
        return ScaledFrame(index: index, size: RenderSize(width: w, height: h), pixels: out)
    }

    /// Nearest neighbour for integer factors (including 1: a plain copy).
    static func replicate(_ canvas: Canvas, width w: Int, height h: Int) -> [UInt8] {
        let fx = w / canvas.width, fy = h / canvas.height
        return [UInt8](unsafeUninitializedCapacity: w * h * 4) { buf, n in
            let src = UnsafeRawPointer(canvas.pixels.baseAddress!).assumingMemoryBound(to: UInt32.self)
            let dst = UnsafeMutableRawPointer(buf.baseAddress!).assumingMemoryBound(to: UInt32.self)
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
            n = w * h * 4
        }
    }

    static func areaAverage(_ canvas: Canvas, width w: Int, height h: Int) -> [UInt8] {
        let xw = AxisWeights(source: canvas.width, target: w)
        let yw = AxisWeights(source: canvas.height, target: h)
        let tables = SRGBTables.shared
        let lin = tables.toLinear
        let acc = UnsafeMutablePointer<Float>.allocate(capacity: w * 4)
        defer { acc.deallocate() }
        let srcBase = canvas.pixels.baseAddress!
        let srcRowBytes = canvas.width * 4
        return [UInt8](unsafeUninitializedCapacity: w * h * 4) { buf, n in
            let dst = buf.baseAddress!
            xw.withPointers { xs, xc, xo, xwt in
                yw.withPointers { ys, yc, yo, ywt in
                    for oy in 0..<h {
                        acc.update(repeating: 0, count: w * 4)
                        let yOff = Int(yo[oy])
                        for k in 0..<Int(yc[oy]) {
                            let wy = ywt[yOff + k]
                            let row = srcBase + (Int(ys[oy]) + k) * srcRowBytes
                            for ox in 0..<w {
                                var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                                let xOff = Int(xo[ox])
                                var p = row + Int(xs[ox]) * 4
                                for j in 0..<Int(xc[ox]) {
                                    let pa = Float(p[3]) * xwt[xOff + j]
                                    r += lin[Int(p[0])] * pa
                                    g += lin[Int(p[1])] * pa
                                    b += lin[Int(p[2])] * pa
                                    a += pa
                                    p += 4
                                }
                                let q = acc + ox * 4
                                q[0] += r * wy; q[1] += g * wy; q[2] += b * wy; q[3] += a * wy
                            }
                        }
                        let out = dst + oy * w * 4
                        for ox in 0..<w {
                            let q = acc + ox * 4, o = out + ox * 4
                            let a = q[3]
                            if a < 0.5 {   // rounds to alpha 0: fully transparent
                                o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0
                            } else {
                                let inv = 1 / a
                                o[0] = tables.srgb(fromLinear: q[0] * inv)
                                o[1] = tables.srgb(fromLinear: q[1] * inv)
                                o[2] = tables.srgb(fromLinear: q[2] * inv)
                                o[3] = UInt8(min(255, a + 0.5))
                            }
                        }
                    }
                }
            }
            n = w * h * 4
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
