import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct RenderBackgroundTests {
    func shown(_ mode: BackgroundMode, _ px: [UInt8]) -> UInt32 {
        px.withUnsafeBufferPointer { mode.shown($0.baseAddress!, x: 0, y: 0) }
    }

    @Test func terminalBlendMixesLightNotCodeValues() {
        let m = BackgroundMode.terminalBlend(0, 0, 0)
        #expect(shown(m, [255, 255, 255, 0]) == CellColor.terminalDefault)
        #expect(shown(m, [10, 20, 30, 255]) == 0x0A141E)
        // Half-covered white over black: half the light is sRGB 188, not 128.
        let half = shown(m, [255, 255, 255, 128])
        #expect(half == 0xBCBCBC)
        // Against the reference formula on every alpha, one channel over a coloured background.
        let bg: (UInt8, UInt8, UInt8) = (0x20, 0x20, 0x40)
        for a in 1..<255 {
            let c = shown(.terminalBlend(bg.0, bg.1, bg.2), [200, 100, 50, UInt8(a)])
            let f = Double(a) / 255
            func ref(_ v: UInt8, _ b: UInt8) -> Int {
                let l = SRGBTables.decode(Double(v) / 255) * f + SRGBTables.decode(Double(b) / 255) * (1 - f)
                return Int((SRGBTables.encode(l) * 255).rounded())
            }
            let want = [ref(200, bg.0), ref(100, bg.1), ref(50, bg.2)]
            let got = [Int(c >> 16), Int(c >> 8 & 0xFF), Int(c & 0xFF)]
            #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 1 }, "alpha \(a): \(got) vs \(want)")
        }
    }

    @Test func terminalModeKeepsItsHalfThreshold() {
        #expect(shown(.terminal, [255, 0, 0, 127]) == CellColor.terminalDefault)
        #expect(shown(.terminal, [255, 0, 0, 128]) == 0xFF0000)
    }
}
