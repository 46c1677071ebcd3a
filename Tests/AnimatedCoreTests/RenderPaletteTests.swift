import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct RenderPaletteTests {
    /// Brute-force nearest by OKLab distance, independently of the quantiser's cache.
    func okNearest(_ r: UInt8, _ g: UInt8, _ b: UInt8, in range: Range<Int>) -> Int {
        let p = PaletteQuantizer.oklab(r, g, b)
        return range.min { i, j in dist(p, i) < dist(p, j) }!
    }
    func dist(_ p: (Float, Float, Float), _ i: Int) -> Float {
        let (r, g, b) = PaletteQuantizer.xtermRGB(i)
        let q = PaletteQuantizer.oklab(r, g, b)
        return (p.0 - q.0) * (p.0 - q.0) + (p.1 - q.1) * (p.1 - q.1) + (p.2 - q.2) * (p.2 - q.2)
    }

    @Test func paletteColoursMapToThemselves() {
        let q = PaletteQuantizer(mode: .palette256)
        for i in 16..<256 {
            let (r, g, b) = PaletteQuantizer.xtermRGB(i)
            let got = Int(q.index(r, g, b))
            // Cube greys and ramp greys can coincide in value only at distinct levels; exact hit.
            #expect(PaletteQuantizer.xtermRGB(got) == PaletteQuantizer.xtermRGB(i), "index \(i)")
        }
        #expect(q.index(128, 128, 128) == 244)   // 8 + 10·12 on the grey ramp
        let q16 = PaletteQuantizer(mode: .palette16)
        #expect(q16.index(205, 0, 0) == 1)
        #expect(q16.index(250, 250, 250) == 15)
    }

    @Test func quantiserIsTheOKLabNearestAndCachesCorrectly() {
        var rng = TestRandom("RenderPaletteTests.quantiser")
        let q = PaletteQuantizer(mode: .palette256)
        var differsFromRGB = 0
        for _ in 0..<3000 {
            let r = UInt8.random(in: 0...255, using: &rng), g = UInt8.random(in: 0...255, using: &rng)
            let b = UInt8.random(in: 0...255, using: &rng)
            let got = Int(q.index(r, g, b))
            #expect(got == okNearest(r, g, b, in: 16..<256))
            #expect(Int(q.index(r, g, b)) == got)   // cached answer is the same
            // Plain RGB distance would often choose differently.
            let rgbNearest = (16..<256).min { i, j in
                func d(_ k: Int) -> Int {
                    let (pr, pg, pb) = PaletteQuantizer.xtermRGB(k)
                    return (Int(pr) - Int(r)) * (Int(pr) - Int(r)) + (Int(pg) - Int(g)) * (Int(pg) - Int(g)) + (Int(pb) - Int(b)) * (Int(pb) - Int(b))
                }
                return d(i) < d(j)
            }!
            if rgbNearest != got { differsFromRGB += 1 }
        }
        #expect(differsFromRGB > 0)
    }
}
