import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Replays from a keyframe on a compositor that has already been used: whatever the previous
/// request left behind (canvas, saved dispose-previous pixels) must not leak into the replay.
@Suite struct CompositorReplayTests {
    static let palette: [UInt32] = [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF]

    /// Opaque frame; dispose-previous; full background; dispose-previous; small frame
    /// (the case from issue 12: frame 4 is a keyframe reached right after frame 1).
    static func fiveFrames() -> GIFTestWriter {
        var w = GIFTestWriter(width: 4, height: 4, palette: palette)
        w.control(dispose: 0, delayCs: 5)
        w.image(width: 4, height: 4, pixels: [UInt8](repeating: 0, count: 16))            // red
        w.control(dispose: 3, delayCs: 5)
        w.image(width: 2, height: 2, pixels: [1, 1, 1, 1])                                 // green
        w.control(dispose: 2, delayCs: 5)
        w.image(width: 4, height: 4, pixels: [UInt8](repeating: 2, count: 16))            // blue
        w.control(dispose: 3, delayCs: 5)
        w.image(width: 2, height: 2, pixels: [3, 3, 3, 3])                                 // white
        w.control(dispose: 0, delayCs: 5)
        w.image(x: 2, y: 2, width: 1, height: 1, pixels: [1])                             // green
        w.trailer()
        return w
    }

    static func sequential(_ w: GIFTestWriter) throws -> [[UInt8]] {
        let comp = try Compositor(decoder: GIFDecoder(source: ByteSource(bytes: w.bytes), options: DecodeOptions()))
        return (0..<comp.info.frameCount).map { comp.frame(at: $0).snapshot() }
    }

    @Test func keyframeReplayAfterDisposePreviousFrameIgnoresStaleSavedPixels() throws {
        let w = Self.fiveFrames()
        let want = try Self.sequential(w)
        let comp = try Compositor(decoder: GIFDecoder(source: ByteSource(bytes: w.bytes), options: DecodeOptions()))
        #expect(comp.info.frames[4].keyframe)
        comp.frame(at: 1)
        let got = comp.frame(at: 4).snapshot()
        #expect(Array(got[0..<4]) == [0, 0, 0, 0], "pixel (0,0) of frame 4")
        #expect(got == want[4])
    }

    @Test func everyPairOfRequestsMatchesSequentialDecoding() throws {
        let w = Self.fiveFrames()
        let want = try Self.sequential(w)
        for a in want.indices {
            for b in want.indices {
                let comp = try Compositor(decoder: GIFDecoder(source: ByteSource(bytes: w.bytes), options: DecodeOptions()))
                comp.frame(at: a)
                #expect(comp.frame(at: b).snapshot() == want[b], "frame \(a) then \(b)")
            }
        }
    }

    /// The mixed GIF of the decoder tests (every disposal, transparency, sub-rects, a keyframe
    /// mid-way) through one compositor in seeded random orders.
    @Test func randomOrdersOnOneCompositorMatchSequential() throws {
        var rng = TestRandom("CompositorReplayTests.randomOrders")
        for w in [Self.fiveFrames(), GIFDecoderTests().mixedAnimation()] {
            let want = try Self.sequential(w)
            let comp = try Compositor(decoder: GIFDecoder(source: ByteSource(bytes: w.bytes), options: DecodeOptions()))
            #expect(RandomOrder.check(comp, expected: want, steps: 400, using: &rng) == nil)
        }
    }
}
