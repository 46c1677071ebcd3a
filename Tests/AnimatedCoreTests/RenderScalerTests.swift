import Foundation
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// A canvas from RGBA bytes.
func makeCanvas(_ w: Int, _ h: Int, _ rgba: [UInt8]) -> Canvas {
    let c = Canvas(width: w, height: h)
    for i in 0..<rgba.count { c.pixels[i] = rgba[i] }
    return c
}

/// Slow double-precision reference: exact area coverage, linear light, alpha-weighted.
func referenceAreaAverage(_ c: Canvas, _ w: Int, _ h: Int) -> [Double] {
    func dec(_ v: UInt8) -> Double { SRGBTables.decode(Double(v) / 255) }
    var out = [Double](repeating: 0, count: w * h * 4)
    let sx = Double(c.width) / Double(w), sy = Double(c.height) / Double(h)
    for oy in 0..<h {
        for ox in 0..<w {
            var acc = [0.0, 0.0, 0.0, 0.0], area = 0.0
            let x0 = Double(ox) * sx, x1 = Double(ox + 1) * sx, y0 = Double(oy) * sy, y1 = Double(oy + 1) * sy
            for y in Int(y0.rounded(.down))..<Int(y1.rounded(.up)) {
                let wy = min(Double(y + 1), y1) - max(Double(y), y0)
                for x in Int(x0.rounded(.down))..<Int(x1.rounded(.up)) {
                    let wx = min(Double(x + 1), x1) - max(Double(x), x0)
                    let p = (y * c.width + x) * 4
                    let a = Double(c.pixels[p + 3]) * wx * wy
                    for k in 0..<3 { acc[k] += dec(c.pixels[p + k]) * a }
                    acc[3] += a; area += wx * wy
                }
            }
            let o = (oy * w + ox) * 4
            if acc[3] > 0 { for k in 0..<3 { out[o + k] = SRGBTables.encode(acc[k] / acc[3]) * 255 } }
            out[o + 3] = acc[3] / area
        }
    }
    return out
}

@Suite struct RenderScalerTests {
    @Test func srgbTablesRoundTripEveryCodeValue() {
        let t = SRGBTables.shared
        for v in 0..<256 {
            #expect(t.srgb(fromLinear: t.toLinear[v]) == UInt8(v), "code value \(v)")
        }
    }

    @Test func halvingBlackAndWhiteGivesLinearMidGrey() {
        // Columns alternate black/white: the average is half the light, sRGB 188, not 128.
        var px: [UInt8] = []
        for _ in 0..<2 { for x in 0..<4 { let v: UInt8 = x % 2 == 0 ? 0 : 255; px += [v, v, v, 255] } }
        let f = AreaAverageScaler().scale(makeCanvas(4, 2, px), index: 0, to: RenderSize(width: 2, height: 1))
        let mid = UInt8((SRGBTables.encode(0.5) * 255).rounded())
        #expect(mid == 188)
        #expect(f.pixels == [mid, mid, mid, 255, mid, mid, mid, 255])
    }

    @Test func matchesExactReferenceOnRandomCanvasAtOddRatios() {
        var rng = TestRandom("RenderScalerTests.randomCanvas")
        let w = 37, h = 23
        let px = (0..<(w * h * 4)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let c = makeCanvas(w, h, px)
        for (tw, th) in [(10, 7), (5, 5), (36, 22), (1, 1), (50, 30)] {
            // Without an enlarger: enlargements (50×30) are area averages too (a sharp box filter).
            let f = AreaAverageScaler(enlarger: nil).scale(c, index: 3, to: RenderSize(width: tw, height: th))
            #expect(f.index == 3 && f.size == RenderSize(width: tw, height: th))
            let ref = referenceAreaAverage(c, tw, th)
            var worst = 0.0
            for i in 0..<(tw * th) where ref[i * 4 + 3] >= 0.5 {
                for k in 0..<4 { worst = max(worst, abs(Double(f.pixels[i * 4 + k]) - ref[i * 4 + k])) }
            }
            #expect(worst <= 1.0, "\(tw)x\(th): off by \(worst)")
        }
    }

    @Test func transparentPixelsContributeNoColour() {
        // Opaque red next to fully transparent green: the result is red at half alpha.
        let c = makeCanvas(2, 1, [255, 0, 0, 255, 0, 255, 0, 0])
        let f = AreaAverageScaler().scale(c, index: 0, to: RenderSize(width: 1, height: 1))
        #expect(f.pixels == [255, 0, 0, 128])
    }

    @Test func integerEnlargementReplicatesPixels() {
        let c = makeCanvas(2, 2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
        let f = AreaAverageScaler().scale(c, index: 0, to: RenderSize(width: 6, height: 4))
        for y in 0..<4 {
            for x in 0..<6 {
                let s = ((y / 2) * 2 + x / 3) * 4, d = (y * 6 + x) * 4
                #expect(Array(f.pixels[d..<(d + 4)]) == Array(c.pixels[s..<(s + 4)]))
            }
        }
    }

    @Test func axisWeightsSumToOne() {
        for (n, m) in [(640, 120), (360, 68), (7, 3), (3, 7), (5, 5)] {
            let a = AxisWeights(source: n, target: m)
            for i in 0..<m {
                let s = (0..<Int(a.count[i])).reduce(Float(0)) { $0 + a.weights[Int(a.offset[i]) + $1] }
                #expect(abs(s - 1) < 1e-5, "\(n)->\(m) output \(i)")
            }
        }
    }
}
