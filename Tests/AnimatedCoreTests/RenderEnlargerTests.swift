import Testing
@testable import AnimatedCore

/// Smooth enlargement (`--fill`): linear light, premultiplied alpha, the filter's weights.
@Suite struct RenderEnlargerTests {
    func canvas(_ w: Int, _ h: Int, _ px: [UInt8]) -> Canvas {
        let c = Canvas(width: w, height: h)
        for i in 0..<px.count { c.pixels[i] = px[i] }
        return c
    }

    @Test(arguments: Enlarger.Filter.allCases)
    func aFlatColourStaysExactlyThatColour(filter: Enlarger.Filter) {
        let px = [UInt8]((0..<(5 * 3)).flatMap { _ in [208, 208, 208, 255] as [UInt8] })
        let out = Enlarger(filter: filter).enlarge(canvas(5, 3, px), width: 13, height: 7)
        #expect(out == [UInt8]((0..<(13 * 7)).flatMap { _ in [208, 208, 208, 255] as [UInt8] }))
    }

    @Test(arguments: Enlarger.Filter.allCases)
    func weightsSumToOneAndReachTheEdges(filter: Enlarger.Filter) {
        for (n, m) in [(2, 3), (640, 1200), (7, 100), (1, 5)] {
            let k = KernelWeights(source: n, target: m, filter: filter)
            for i in 0..<m {
                let sum = (0..<k.taps).reduce(Float(0)) { $0 + k.weight[i * k.taps + $1] }
                #expect(abs(sum - 1) < 1e-5)
                #expect((0..<k.taps).allSatisfy { (0..<n).contains(Int(k.index[i * k.taps + $0])) })
            }
        }
    }

    @Test func blackToWhiteIsInterpolatedInLinearLight() {
        // 2×1 black, white → 4×1 bilinear: the middle pixels are ¼ and ¾ of the light, which is
        // sRGB 137 and 225 (code-value interpolation would give 64 and 191).
        let out = Enlarger(filter: .bilinear).enlarge(canvas(2, 1, [0, 0, 0, 255, 255, 255, 255, 255]), width: 4, height: 1)
        let q = UInt8((SRGBTables.encode(0.25) * 255).rounded()), t = UInt8((SRGBTables.encode(0.75) * 255).rounded())
        #expect(out.count == 16 && out[0] == 0 && out[12] == 255)
        #expect(out[4] == q && out[8] == t)
    }

    @Test func transparencyGivesNoFringe() {
        // Opaque red beside fully transparent green: every partly covered pixel stays pure red
        // (premultiplied alpha), alpha falls off.
        let out = Enlarger(filter: .catmullRom).enlarge(canvas(2, 1, [255, 0, 0, 255, 0, 255, 0, 0]), width: 8, height: 1)
        for x in 0..<8 where out[x * 4 + 3] > 0 {
            #expect(out[x * 4] == 255 && out[x * 4 + 1] == 0 && out[x * 4 + 2] == 0)
        }
        #expect(out[3] == 255 && out[31] == 0)
    }

    @Test func theScalerEnlargesByAFractionSmoothlyAndByWholeFactorsSharply() {
        let c = canvas(2, 1, [0, 0, 0, 255, 255, 255, 255, 255])
        let whole = AreaAverageScaler().scale(c, index: 0, to: RenderSize(width: 6, height: 3))
        #expect(Set(whole.pixels).isSubset(of: [0, 255]))
        let fraction = AreaAverageScaler().scale(c, index: 0, to: RenderSize(width: 7, height: 3))
        #expect(fraction.pixels == Enlarger().enlarge(c, width: 7, height: 3))
        #expect(Set(fraction.pixels).count > 2)
    }
}
