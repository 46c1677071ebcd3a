import Testing
@testable import AnimatedCore

/// Frame 0 decoded ahead on a thread of its own: the compositor gets the same canvases (and
/// the same problems) as from the decoder itself, and frame 0 is decoded once, not twice.
@Suite struct FirstFrameAheadTests {
    /// Draws the left half of frame 0, then fails; other frames as `SolidDecoder`.
    final class BrokenFirstFrame: AnimationDecoder {
        let solid = SolidDecoder(frames: 3)
        var info: AnimationInfo { solid.info }
        func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
            guard index == 0 else { return try solid.blend(frame: index, onto: canvas) }
            for y in 0..<canvas.height { for x in 0..<(canvas.width / 2) {
                let o = (y * canvas.width + x) * 4
                canvas.pixels[o] = 9; canvas.pixels[o + 3] = 255
            } }
            throw .invalid("frame 0: image data truncated")
        }
    }

    @Test func theCompositorSeesTheSameFramesAndFrameZeroIsDecodedOnce() throws {
        let plain = SolidDecoder(frames: 5), wrapped = SolidDecoder(frames: 5)
        let decodes = wrapped.decodes
        let a = try Compositor(decoder: plain), b = try Compositor(decoder: FirstFrameAhead(wrapped))
        for i in [0, 1, 2, 4, 0, 3] {
            #expect(Array(a.frame(at: i).pixels) == Array(b.frame(at: i).pixels), "frame \(i)")
        }
        // Once ahead, once more for the replay of frame 0 (which the decoder itself draws).
        #expect(decodes.perFrame[0] == 2)
        #expect(plain.decodes.perFrame[0] == 2)
    }

    @Test func aFirstRequestForAnotherFrameGoesToTheDecoder() throws {
        let decoder = SolidDecoder(frames: 5)
        let decodes = decoder.decodes
        let c = try Compositor(decoder: FirstFrameAhead(decoder))
        #expect(SolidDecoder.index(of: ScaledFrame(index: 3, size: RenderSize(width: 8, height: 8),
                                                   pixels: Array(c.frame(at: 3).pixels))) == 3)
        #expect(SolidDecoder.index(of: ScaledFrame(index: 0, size: RenderSize(width: 8, height: 8),
                                                   pixels: Array(c.frame(at: 0).pixels))) == 0)
        #expect(decodes.perFrame[0] == 2 && decodes.perFrame[3] == 1)
    }

    @Test func aFirstFrameThatFailsKeepsWhatWasDrawnAndItsProblem() throws {
        let a = try Compositor(decoder: BrokenFirstFrame()), b = try Compositor(decoder: FirstFrameAhead(BrokenFirstFrame()))
        let pa = Array(a.frame(at: 0).pixels), pb = Array(b.frame(at: 0).pixels)
        #expect(pa == pb && pa.contains(9))
        #expect(a.problems == b.problems && b.problems[0] != nil)
        #expect(Array(a.frame(at: 2).pixels) == Array(b.frame(at: 2).pixels))
    }

    @Test func aPlayerPlaysItLikeTheDecoder() throws {
        let time = ManualTime()
        let p = try makePlayer(FirstFrameAhead(SolidDecoder(frames: 6)), PlayerOptions(maxFPS: 0), time: time)
        #expect(play(p, time).frames == Array(0..<6))
    }
}
