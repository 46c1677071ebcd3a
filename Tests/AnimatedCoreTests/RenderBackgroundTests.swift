import Foundation
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct RenderBackgroundTests {
    func shown(_ mode: BackgroundMode, _ px: [UInt8]) -> UInt32 {
        px.withUnsafeBufferPointer { mode.shown($0.baseAddress!, x: 0, y: 0) }
    }

    /// Chromium 156 drew Tests/Fixtures/browser/blend/input.png (8 colours × every alpha) over
    /// four page backgrounds (`make.py` there); every output's blend must give its pixels.
    @Test(arguments: ["000000", "ffffff", "1e1e2e", "336699"])
    func blendingIsWhatChromiumShows(_ hex: String) throws {
        let dir = Corpus.fixtures + "/browser/blend/"
        let input = try Corpus.expectedFrame(dir + "input.png")
        let want = try Corpus.expectedFrame(dir + "over-\(hex).png")
        let v = UInt32(hex, radix: 16)!
        let bg = (UInt8(v >> 16), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF))
        #expect(input.width == 256 && input.height == 8 && want.width == 256)
        var wrong = 0, first: String?
        for mode in [BackgroundMode.terminalBlend(bg.0, bg.1, bg.2), .color(bg.0, bg.1, bg.2)] {
            for i in stride(from: 0, to: input.pixels.count, by: 4) where input.pixels[i + 3] > 0 {
                let c = shown(mode, Array(input.pixels[i..<(i + 4)]))
                let got = [UInt8(c >> 16), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)]
                if got != Array(want.pixels[i..<(i + 3)]) {
                    wrong += 1
                    first = first ?? "\(mode) pixel \(i / 4) \(Array(input.pixels[i..<(i + 4)])): \(got) vs \(Array(want.pixels[i..<(i + 3)]))"
                }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels differ, first \(first ?? "")")
        // The issue's example: a 10 %-opaque white over black shows 25 (linear light gave 89).
        #expect(shown(.terminalBlend(0, 0, 0), [255, 255, 255, 25]) == 0x191919)
        #expect(shown(.terminalBlend(0, 0, 0), [255, 255, 255, 0]) == CellColor.terminalDefault)
    }

    /// The sixel and iTerm2 encoders flatten frames with the same blend.
    @Test func opaqueFramesBlendAsTheCellsDo() {
        let px: [UInt8] = [255, 204, 51, 25, 208, 208, 208, 128, 10, 20, 30, 255, 1, 2, 3, 0]
        let frame = ScaledFrame(index: 0, size: RenderSize(width: 4, height: 1), pixels: px)
        let mode = BackgroundMode.terminalBlend(0x1e, 0x1e, 0x2e)
        let flat = OpaqueFrame(frame, background: mode)
        for i in 0..<3 {
            let c = shown(mode, Array(px[(i * 4)..<(i * 4 + 4)]))
            #expect(Array(flat.rgb[(i * 3)..<(i * 3 + 3)]) == [UInt8(c >> 16), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)])
        }
        #expect(Array(flat.rgb[9..<12]) == [0x1e, 0x1e, 0x2e])   // fully transparent: the terminal's colour
    }

    @Test func terminalModeKeepsItsHalfThreshold() {
        #expect(shown(.terminal, [255, 0, 0, 127]) == CellColor.terminalDefault)
        #expect(shown(.terminal, [255, 0, 0, 128]) == 0xFF0000)
    }
}
