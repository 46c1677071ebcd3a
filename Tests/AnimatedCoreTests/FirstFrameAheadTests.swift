import Testing
@testable import AnimatedCore
#if canImport(Glibc)
import Glibc
#endif

/// Frame 0 decoded ahead on a thread of its own: the compositor gets the same canvases (and
/// the same problems) as from the decoder itself, and frame 0 is decoded once, not twice, on
/// the canvas the compositor keeps.
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

    /// Frame k fills its own rect with one colour; frame 0 is disposed to what was under it
    /// (transparent), frame 1 to the background: what the compositor saves and restores
    /// around frame 0 shows in the frames after it.
    final class PatchDecoder: AnimationDecoder {
        let info: AnimationInfo
        init() {
            let rects = [FrameRect(x: 1, y: 1, width: 5, height: 4), FrameRect(x: 3, y: 0, width: 6, height: 3),
                         FrameRect(x: 0, y: 4, width: 2, height: 3)]
            let dispose: [DisposeOp] = [.previous, .background, .none]
            info = AnimationInfo(format: .gif, width: 7, height: 6, frames: (0..<3).map { k in
                FrameInfo(rect: rects[k], delayMs: 100, dispose: dispose[k], blend: .over, hasAlpha: true)
            }, plays: 1, timing: TimingPolicy(browserMinimumDelay: false))
        }
        func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
            let r = info.frames[index].rect.clipped(toWidth: canvas.width, height: canvas.height)
            for y in r.y..<(r.y + r.height) { for x in r.x..<(r.x + r.width) {
                let o = (y * canvas.width + x) * 4
                canvas.pixels[o] = UInt8(40 * (index + 1)); canvas.pixels[o + 3] = 255
            } }
        }
    }

    @Test func theCompositorKeepsTheCanvasFrameZeroWasDecodedOn() throws {
        let wrapped = SolidDecoder(frames: 3)
        let c = try Compositor(decoder: FirstFrameAhead(wrapped))
        let canvas = c.canvas
        #expect(c.currentIndex == 0 && c.framesDecoded == 1)
        #expect(SolidDecoder.index(of: ScaledFrame(index: 0, size: RenderSize(width: 8, height: 8),
                                                   pixels: Array(c.frame(at: 0).pixels))) == 0)
        #expect(c.frame(at: 1) === canvas)
        #expect(wrapped.decodes.perFrame == [1, 1, 0])
    }

    @Test func frameZerosDisposalIsAsWithoutIt() throws {
        let a = try Compositor(decoder: PatchDecoder()), b = try Compositor(decoder: FirstFrameAhead(PatchDecoder()))
        for i in [0, 1, 2, 0, 2, 1] {
            #expect(Array(a.frame(at: i).pixels) == Array(b.frame(at: i).pixels), "frame \(i)")
        }
    }

    @Test func aBlendBeforeTheCompositorGoesToTheDecoder() throws {
        let decoder = SolidDecoder(frames: 2)
        let ahead = FirstFrameAhead(decoder)
        let canvas = Canvas(width: 8, height: 8)
        try ahead.blend(frame: 1, onto: canvas)
        #expect(ahead.takeFrameZero().map { _ in true } == nil)
        let c = try Compositor(decoder: ahead)
        #expect(c.currentIndex == -1)
        let plain = try Compositor(decoder: SolidDecoder(frames: 2))
        #expect(Array(c.frame(at: 0).pixels) == Array(plain.frame(at: 0).pixels))
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

    // MARK: - Early: frame 0 of a GIF file decoded while its decoder is opened

    /// A 12×10 GIF of three frames: frame 0 covers part of the canvas, with a transparent
    /// index and dispose-previous; `damaged` stops frame 0's data with an invalid code.
    static func gif(width: Int = 12, height: Int = 10, damaged: Bool = false) -> [UInt8] {
        var w = GIFTestWriter(width: width, height: height, palette: [0x000000, 0xFF0000, 0x00FF00, 0x0000FF])
        w.loop(0)
        w.control(dispose: 3, delayCs: 5, transparent: 0)
        w.image(x: 2, y: 1, width: 7, height: 6, pixels: (0..<42).map { UInt8($0 % 4) },
                invalidCodeAfter: damaged ? 20 : nil)
        w.control(dispose: 2, delayCs: 5)
        w.image(x: 0, y: 0, width: 5, height: 4, pixels: (0..<20).map { UInt8(($0 + 1) % 4) })
        w.control(dispose: 0, delayCs: 5)
        w.image(x: 4, y: 3, width: width - 4, height: height - 3,
                pixels: (0..<((width - 4) * (height - 3))).map { UInt8(($0 / 3) % 4) })
        w.trailer()
        return w.bytes
    }

    /// `bytes` in a file of its own for `body`.
    static func withFile(_ bytes: [UInt8], _ body: (String) throws -> Void) throws {
        var template = Array("/tmp/animplay-early-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { unlink(path) }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        try body(path)
    }

    static func decoder(_ path: String) throws -> GIFDecoder {
        try GIFDecoder(source: ByteSource(path: path), options: DecodeOptions())
    }

    @Test(arguments: [false, true])
    func earlyFrameZeroIsTakenAndTheFramesAreAsWithoutIt(damaged: Bool) throws {
        try Self.withFile(Self.gif(damaged: damaged)) { path in
            let early = FirstFrameAhead.Early(path: path, options: DecodeOptions())
            let b = try Compositor(decoder: FirstFrameAhead(Self.decoder(path), early: early))
            #expect(b.currentIndex == 0, "frame 0 taken from the early decoder")
            let a = try Compositor(decoder: Self.decoder(path))
            for i in [0, 1, 2, 0, 2, 1] {
                #expect(Array(a.frame(at: i).pixels) == Array(b.frame(at: i).pixels), "frame \(i)")
            }
            #expect(a.problems == b.problems && (b.problems[0] != nil) == damaged)
        }
    }

    @Test func anEarlyFrameOfAnotherFileIsNotTaken() throws {
        try Self.withFile(Self.gif(width: 13)) { other in
            try Self.withFile(Self.gif()) { path in
                let early = FirstFrameAhead.Early(path: other, options: DecodeOptions())
                let b = try Compositor(decoder: FirstFrameAhead(Self.decoder(path), early: early))
                #expect(b.currentIndex == -1)
                let a = try Compositor(decoder: Self.decoder(path))
                for i in [0, 1, 2] { #expect(Array(a.frame(at: i).pixels) == Array(b.frame(at: i).pixels), "frame \(i)") }
            }
        }
    }

    @Test func anEarlyLookAtAFileThatIsNoGIFLeavesNothing() throws {
        try Self.withFile(Array("not an image at all".utf8)) { text in
            try Self.withFile(Self.gif()) { path in
                let b = try Compositor(decoder: FirstFrameAhead(Self.decoder(path),
                                                                early: FirstFrameAhead.Early(path: text, options: DecodeOptions())))
                #expect(b.currentIndex == -1)
                let a = try Compositor(decoder: Self.decoder(path))
                #expect(Array(a.frame(at: 0).pixels) == Array(b.frame(at: 0).pixels))
            }
        }
    }
}
