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

    @Test func overMatchesExactReferenceForEveryAlphaPair() {
        var rng = TestRandom("BlendTests.overMatchesExactReference")
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
                let want: [UInt8] = sa == 0 ? d.map { UInt8($0) } : (da == 0 ? s.map { UInt8($0) } : Self.reference(s, d))
                #expect(dst == want, "sa=\(sa) da=\(da) s=\(s) d=\(d) (\(rng))")
            }
        }
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
