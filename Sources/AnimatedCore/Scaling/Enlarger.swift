#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Smooth enlargement by a fraction (`--fill`, HiDPI): a separable resampling filter in linear
/// light with premultiplied alpha, so that edges against transparency get no dark or coloured
/// fringe and a bright detail keeps its light. Reductions are not done here (the area average
/// covers every source pixel; a kernel sized for enlargement would skip some).
///
/// Each source row is converted to premultiplied linear light once and filtered horizontally
/// into a small ring of rows (as many as the vertical filter has taps), then each output row is
/// a weighted sum of ring rows: memory is a few rows, not a second frame. The weights for both
/// axes are computed once per call (a few thousand floats); the loops run on raw pointers.
/// Bilinear (the default) takes `RowResampler`'s fused loop (no clamping, opaque rows without
/// the division by alpha); the other filters the general one (`filterRows`).
package struct Enlarger: Sendable {
    /// The reconstruction filter.
    package enum Filter: String, Sendable, CaseIterable {
        /// Linear interpolation (triangle, 2 taps).
        case bilinear
        /// Catmull-Rom cubic (B=0, C=½; 4 taps): sharp, slight overshoot.
        case catmullRom
        /// Mitchell-Netravali cubic (B=C=⅓; 4 taps): ImageMagick's filter for enlarging.
        case mitchell
        /// Lanczos, 3 lobes (6 taps).
        case lanczos3

        var support: Double {
            switch self {
            case .bilinear: 1
            case .catmullRom, .mitchell: 2
            case .lanczos3: 3
            }
        }

        func weight(_ x: Double) -> Double {
            let x = abs(x)
            switch self {
            case .bilinear: return max(0, 1 - x)
            case .catmullRom: return Self.cubic(x, b: 0, c: 0.5)
            case .mitchell: return Self.cubic(x, b: 1.0 / 3, c: 1.0 / 3)
            case .lanczos3:
                if x < 1e-9 { return 1 }
                if x >= 3 { return 0 }
                let px = Double.pi * x
                return 3 * sin(px) * sin(px / 3) / (px * px)
            }
        }

        static func cubic(_ x: Double, b: Double, c: Double) -> Double {
            if x < 1 {
                return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6
            }
            if x < 2 {
                return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
            }
            return 0
        }
    }

    /// The filter used unless told otherwise: chosen by SSIM against ImageMagick's `-resize` and
    /// chafa's picture (Benchmarks/fill-quality.py; figures in the README).
    package static let defaultFilter = Filter.bilinear

    package let filter: Filter
    package init(filter: Filter = Enlarger.defaultFilter) { self.filter = filter }

    /// `canvas` enlarged to `width`×`height` (RGBA, straight alpha, sRGB) into `dst`, which must
    /// hold `width`·`height`·4 bytes.
    package func enlarge(_ canvas: Canvas, width w: Int, height h: Int, into dst: UnsafeMutablePointer<UInt8>) {
        let cw = canvas.width, ch = canvas.height
        let xk = KernelWeights(source: cw, target: w, filter: filter)
        let yk = KernelWeights(source: ch, target: h, filter: filter)
        if filter == .bilinear {
            // Weights never negative: the fused loop without clamps (the default filter, --fill).
            RowResampler.resample(canvas, xk: xk, yk: yk, width: w, height: h, into: dst)
        } else {
            Self.filterRows(canvas, xk: xk, yk: yk, width: w, height: h, into: dst)
        }
    }

    /// The general loop, for any taps (negative lobes clamped): each output row is summed in an
    /// accumulator row, then converted.
    static func filterRows(_ canvas: Canvas, xk: KernelWeights, yk: KernelWeights, width w: Int, height h: Int,
                           into dst: UnsafeMutablePointer<UInt8>) {
        let cw = canvas.width
        let tables = SRGBTables.shared
        let lin = tables.toLinear
        let ring = yk.taps + 1
        let src = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: cw)          // one source row, linear premultiplied
        let rows = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: ring * w)   // horizontally filtered rows
        let acc = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w)
        let tags = UnsafeMutablePointer<Int>.allocate(capacity: ring)
        tags.initialize(repeating: -1, count: ring)
        defer { src.deallocate(); rows.deallocate(); acc.deallocate(); tags.deallocate() }
        let base = canvas.pixels.baseAddress!
        let xt = xk.taps, yt = yk.taps
        xk.withPointers { xs, xw in
            yk.withPointers { ys, yw in
                for oy in 0..<h {
                    acc.update(repeating: .zero, count: w)
                    for k in 0..<yt {
                        let wy = yw[oy * yt + k]
                        if wy == 0 { continue }
                        let sy = Int(ys[oy * yt + k])
                        let slot = sy % ring
                        let row = rows + slot * w
                        if tags[slot] != sy {
                            var p = base + sy * cw * 4
                            for x in 0..<cw {
                                let a = Float(p[3]) * (1 / 255)
                                src[x] = SIMD4(lin[Int(p[0])] * a, lin[Int(p[1])] * a, lin[Int(p[2])] * a, a)
                                p += 4
                            }
                            if xt == 2 {
                                // Bilinear (the default): two taps, no inner loop. The same sums
                                // as below (0 + x is x), so the output does not depend on it.
                                for ox in 0..<w {
                                    let s = xs + ox * 2, wt = xw + ox * 2
                                    row[ox] = src[Int(s[0])] * wt[0] + src[Int(s[1])] * wt[1]
                                }
                            } else {
                                for ox in 0..<w {
                                    var sum = SIMD4<Float>.zero
                                    let s = xs + ox * xt, wt = xw + ox * xt
                                    for j in 0..<xt { sum += src[Int(s[j])] * wt[j] }
                                    row[ox] = sum
                                }
                            }
                            tags[slot] = sy
                        }
                        for ox in 0..<w { acc[ox] += row[ox] * wy }
                    }
                    // Back to straight sRGB: `SRGBTables.srgb(fromLinear:)` inlined on a local
                    // table pointer, and no division for opaque pixels (q·1 is q: the same bytes).
                    let out = dst + oy * w * 4
                    let toSRGB = tables.toSRGB
                    let steps = Float(SRGBTables.encodeSteps)
                    for ox in 0..<w {
                        let q = acc[ox], o = out + ox * 4
                        let a = min(q[3], 1)
                        if a < 0.5 / 255 {
                            o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0
                            continue
                        }
                        let l = a == 1 ? q : q * (1 / a)
                        o[0] = toSRGB[Int(min(max(l[0], 0), 1) * steps + 0.5)]
                        o[1] = toSRGB[Int(min(max(l[1], 0), 1) * steps + 0.5)]
                        o[2] = toSRGB[Int(min(max(l[2], 0), 1) * steps + 0.5)]
                        o[3] = UInt8(a * 255 + 0.5)
                    }
                }
            }
        }
    }

    /// `canvas` enlarged to `width`×`height` as a new array.
    package func enlarge(_ canvas: Canvas, width w: Int, height h: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: w * h * 4) { buf, n in
            enlarge(canvas, width: w, height: h, into: buf.baseAddress!)
            n = w * h * 4
        }
    }
}

/// Per-axis filter taps: output pixel i takes source pixels `index[i·taps + k]` (clamped to the
/// edge) with weights `weight[i·taps + k]`, normalised to sum 1.
struct KernelWeights {
    let taps: Int
    var index: [Int32]
    var weight: [Float]

    init(source n: Int, target m: Int, filter: Enlarger.Filter) {
        let support = filter.support
        taps = Int(2 * support)
        index = [Int32](repeating: 0, count: m * taps)
        weight = [Float](repeating: 0, count: m * taps)
        let ratio = Double(n) / Double(m)
        for i in 0..<m {
            let centre = (Double(i) + 0.5) * ratio - 0.5
            let first = Int((centre - support).rounded(.up))
            var w = [Double](repeating: 0, count: taps)
            var total = 0.0
            for k in 0..<taps {
                w[k] = filter.weight(Double(first + k) - centre)
                total += w[k]
            }
            for k in 0..<taps {
                index[i * taps + k] = Int32(min(max(first + k, 0), n - 1))
                weight[i * taps + k] = Float(total != 0 ? w[k] / total : (k == 0 ? 1 : 0))
            }
        }
    }

    func withPointers<R>(_ body: (UnsafePointer<Int32>, UnsafePointer<Float>) -> R) -> R {
        index.withUnsafeBufferPointer { i in weight.withUnsafeBufferPointer { w in body(i.baseAddress!, w.baseAddress!) } }
    }
}
