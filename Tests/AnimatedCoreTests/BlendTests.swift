import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct BlendTests {
    /// Reference OVER in exact rational arithmetic, rounded to nearest.
    static func reference(_ s: [Int], _ d: [Int]) -> [UInt8] {
        let sa = s[3], da = d[3]
        let a255 = sa * 255 + da * (255 - sa)
        if a255 == 0 { return [0, 0, 0, 0] }
        var out: [UInt8] = []
        for c in 0..<3 {
            let num = s[c] * sa * 255 + d[c] * da * (255 - sa)
            out.append(UInt8((2 * num + a255) / (2 * a255)))
        }
        out.append(UInt8((2 * a255 + 255) / (2 * 255)))
        return out
    }

    /// Skia's float OVER as Chromium's PNG decoder runs it (`SkPngRustCodec::blendRow`: load,
    /// premul, srcover, unpremul, store), transcribed in Double with each step rounded to
    /// Float and the fused step rounded once: the bytes Chromium gave for 65 536 random pairs.
    static func chromium(_ s: [Int], _ d: [Int]) -> [UInt8] {
        func f(_ x: Double) -> Double { Double(Float(x)) }
        let k = f(1.0 / 255)
        let sa = f(Double(s[3]) * k), da = f(Double(d[3]) * k), inv = f(1 - sa)
        let a = f(da * inv + sa)
        let scale = f(1 / a)
        func store(_ v: Double) -> UInt8 { UInt8(f(min(max(v, 0), 1) * 255).rounded(.toNearestOrEven)) }
        var out: [UInt8] = []
        for c in 0..<3 {
            let sc = f(f(Double(s[c]) * k) * sa), dc = f(f(Double(d[c]) * k) * da)
            out.append(store(f(f(dc * inv + sc) * scale)))
        }
        out.append(store(a))
        return out
    }

    /// Every alpha pair: Chromium's float formula, which is exact OVER rounded to nearest
    /// except (by one) where the exact value is within float error of a half.
    @Test func overMatchesChromiumsFormulaForEveryAlphaPair() {
        var rng = TestRandom("BlendTests.overMatchesExactReference")
        var apart = 0
        for sa in 0...255 {
            for da in stride(from: 0, through: 255, by: 3) {
                let s = [Int.random(in: 0...255, using: &rng), 0, 255, sa]
                let d = [Int.random(in: 0...255, using: &rng), 255, 0, da]
                var src = s.map { UInt8($0) }, dst = d.map { UInt8($0) }
                src.withUnsafeMutableBufferPointer { sp in
                    dst.withUnsafeMutableBufferPointer { dp in
                        Blend.row(sp.baseAddress!, onto: dp.baseAddress!, count: 1, op: .over)
                    }
                }
                let want: [UInt8] = sa == 0 ? d.map { UInt8($0) } : (da == 0 ? s.map { UInt8($0) } : Self.chromium(s, d))
                #expect(dst == want, "sa=\(sa) da=\(da) s=\(s) d=\(d) (\(rng))")
                if sa > 0 && da > 0 {
                    let exact = Self.reference(s, d)
                    #expect(zip(dst, exact).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "sa=\(sa) da=\(da)")
                    if dst != exact { apart += 1 }
                }
            }
        }
        // The two part only at near-halves: rarely.
        #expect(apart < 20, "\(apart) pairs apart from exact OVER")
    }

    /// `Blend.fused` is x·y + z rounded once, as a hardware FMA: equal to `addingProduct`
    /// (libm's `fmaf`, exact) on random triples and on sums that a Double rounds onto a tie
    /// between two floats, where rounding the Double again would go the wrong way.
    @Test func fusedRoundsOnce() {
        var rng = TestRandom("BlendTests.fusedRoundsOnce")
        for _ in 0..<100_000 {
            let x = Float.random(in: 0...1, using: &rng), y = Float.random(in: 0...1, using: &rng)
            let z = Float.random(in: 0...1, using: &rng)
            #expect(Blend.fused(x, y, z) == z.addingProduct(x, y), "\(x) \(y) \(z) (\(rng))")
        }
        // z + x·y a hair below and a hair above the midpoint between 1 + ulp and 1 + 2 ulp
        // (x·y = 2^-24 ∓ a few 2^-70: (2^23 + 1)(2^23 − 1) and (2^23 + 2896)(2^23 − 2895) are
        // 2^46 − 1 and 2^46 + 4688), which the Double sum rounds onto the midpoint itself.
        let ulp: Float = 0x1p-23
        let z = 1 + ulp                                   // odd: a tie goes to 1 + 2 ulp
        let cases: [(x: Float, y: Float, want: Float, tieGoes: Float)] = [
            (1 + ulp, (1 - ulp) * 0x1p-24, 1 + ulp, 1 + 2 * ulp),
            (1 + 2896 * ulp, (1 - 2895 * ulp) * 0x1p-24, 1 + 2 * ulp, 1 + 2 * ulp),
        ]
        for c in cases {
            let double = Double(c.x) * Double(c.y) + Double(z)
            #expect(double.bitPattern & 0x1FFF_FFFF == 0x1000_0000, "the Double sum is a tie")
            #expect(Float(double) == c.tieGoes)
            #expect(Blend.fused(c.x, c.y, z) == c.want && z.addingProduct(c.x, c.y) == c.want)
        }
    }

    /// Every channel of `overPixel` equals the float formula (`chromiumChannel`) for every s
    /// and d over a spread of alpha pairs: the integer formula outside the band near a half,
    /// the float one inside it (where they part).
    @Test func overPixelIsTheFloatFormulaOnEveryChannel() {
        var parted = 0
        for sa in stride(from: 1, through: 254, by: 37) {
            for da in stride(from: 1, through: 255, by: 37) {
                for sv in 0...255 {
                    for dv in 0...255 {
                        var src: [UInt8] = [UInt8(sv), 0, 0, UInt8(sa)], dst: [UInt8] = [UInt8(dv), 0, 0, UInt8(da)]
                        src.withUnsafeMutableBufferPointer { sp in
                            dst.withUnsafeMutableBufferPointer { Blend.overPixel(sp.baseAddress!, $0.baseAddress!, sa: sa, da: da) }
                        }
                        let want = Blend.chromiumChannel(sv, dv, sa: sa, da: da)
                        if dst[0] != want {
                            Issue.record("s=\(sv) d=\(dv) sa=\(sa) da=\(da): \(dst[0]), float formula \(want)")
                            return
                        }
                        if want != Self.reference([sv, 0, 0, sa], [dv, 0, 0, da])[0] { parted += 1 }
                    }
                }
            }
        }
        #expect(parted > 0, "no case where exact and float OVER part: the band is not exercised")
    }

    @Test func sourceReplacesAndClipsToCanvas() {
        let canvas = Canvas(width: 4, height: 4)
        let img = [UInt8](repeating: 7, count: 3 * 3 * 4)
        img.withUnsafeBufferPointer {
            Blend.image($0.baseAddress!, width: 3, height: 3, srcStride: 12, at: 2, 2, onto: canvas, op: .source)
        }
        let px = canvas.snapshot()
        #expect(px[(2 * 4 + 2) * 4] == 7 && px[(3 * 4 + 3) * 4] == 7)
        #expect(px[(1 * 4 + 1) * 4] == 0)
        #expect(px.filter { $0 == 7 }.count == 4 * 4)
    }

    /// Repeated nearly transparent layers over an opaque pixel keep it opaque, and the colour
    /// moves by exactly one step per layer (no drift from rounding).
    @Test func repeatedNearlyTransparentOverStaysOpaque() {
        var dst: [UInt8] = [0, 255, 0, 255]
        let src: [UInt8] = [255, 0, 0, 1]
        for _ in 0..<128 {
            src.withUnsafeBufferPointer { sp in
                dst.withUnsafeMutableBufferPointer { Blend.row(sp.baseAddress!, onto: $0.baseAddress!, count: 1, op: .over) }
            }
        }
        #expect(dst[3] == 255)
        #expect(dst[0] == 128 && dst[1] == 127)
    }

    /// libwebp's BlendPixelNonPremult, transcribed as plain integer arithmetic.
    static func libwebp(_ s: [Int], _ d: [Int]) -> [UInt8] {
        let sa = s[3]
        if sa == 0 { return d.map { UInt8($0) } }
        let dw = (d[3] * (256 - sa)) >> 8
        let a = sa + dw
        let scale = (1 << 24) / a
        return (0..<3).map { UInt8(((s[$0] * sa + d[$0] * dw) * scale) >> 24) } + [UInt8(a)]
    }

    /// Every alpha pair, random colours: the row blend equals libwebp's formula, except that alpha
    /// 255 copies (libwebp's row function skips those pixels).
    @Test func webpBlendMatchesLibwebpForEveryAlphaPair() {
        var rng = TestRandom("BlendTests.webpBlend")
        for sa in 0...255 {
            for da in 0...255 {
                let s = [Int.random(in: 0...255, using: &rng), Int.random(in: 0...255, using: &rng), 255, sa]
                let d = [Int.random(in: 0...255, using: &rng), 0, Int.random(in: 0...255, using: &rng), da]
                var dst = d.map { UInt8($0) }
                let src = s.map { UInt8($0) }
                src.withUnsafeBufferPointer { sp in
                    dst.withUnsafeMutableBufferPointer { WebPBlend.row(sp.baseAddress!, onto: $0.baseAddress!, count: 1) }
                }
                let want = sa == 255 ? src : Self.libwebp(s, d)
                if dst != want { Issue.record("sa=\(sa) da=\(da) s=\(s) d=\(d): \(dst) != \(want) (\(rng))"); return }
            }
        }
    }
}
