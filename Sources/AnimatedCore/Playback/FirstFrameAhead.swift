/// A decoder whose frame 0 is decoded from the start on a thread of its own, while the caller
/// does other work before the player starts (probing the terminal, choosing the output), so
/// that the producer finds it done: the first image no longer waits for it (a 1280×720 GIF
/// frame takes about 7 ms; the terminal's answers take as long or longer).
///
/// The first `blend(frame: 0, onto:)` onto a transparent canvas of the animation's size (what
/// the compositor's first frame is drawn on) copies the frame decoded ahead, with its error if it
/// had one (what was drawn before the error included, as the decoder leaves it); any other call,
/// and any call after that, goes to the decoder. For complete data only: a growing source's
/// decoder is not wrapped (`refresh` is passed on all the same).
///
/// Its memory (a canvas) is freed at the first `blend`. The side thread touches nothing but the
/// decoder and the `Ahead` it fills; the first call of any method joins it first.
package final class FirstFrameAhead: AnimationDecoder {
    package let info: AnimationInfo
    private let decoder: any AnimationDecoder
    private var ahead: Ahead?
    private var thread: ProducerThread?

    /// Frame 0 as decoded on the side thread. @unchecked Sendable: written by the side thread
    /// alone until it is joined, read by the caller's thread alone afterwards (the join orders
    /// the two).
    private final class Ahead: @unchecked Sendable {
        let canvas: Canvas
        var error: AnimatedError?
        init(_ canvas: Canvas) { self.canvas = canvas }
    }

    /// The decoder and its thread for the side. @unchecked Sendable: the decoder is used by the
    /// side thread alone until it is joined.
    private struct Side: @unchecked Sendable {
        let decoder: any AnimationDecoder
        let ahead: Ahead
    }

    /// Starts decoding frame 0 of `decoder` (which is used through this object from now on).
    /// If no thread can be started, frame 0 is decoded when first asked for, as without it.
    package init(_ decoder: any AnimationDecoder) {
        self.decoder = decoder
        info = decoder.info
        guard info.frameCount > 0, info.width > 0, info.height > 0 else { return }
        let side = Side(decoder: decoder, ahead: Ahead(Canvas(width: info.width, height: info.height)))
        do {
            thread = try ProducerThread(what: "first frame") {
                do throws(AnimatedError) { try side.decoder.blend(frame: 0, onto: side.ahead.canvas) } catch { side.ahead.error = error }
            }
            ahead = side.ahead
        } catch {
            thread = nil
        }
    }

    deinit { thread?.join() }

    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        thread?.join()
        thread = nil
        if let ahead {
            self.ahead = nil
            if index == 0 && canvas.width == ahead.canvas.width && canvas.height == ahead.canvas.height
                && canvas.isTransparent {
                _ = canvas.pixels.update(fromContentsOf: ahead.canvas.pixels)
                if let error = ahead.error { throw error }
                return
            }
        }
        try decoder.blend(frame: index, onto: canvas)
    }

    package func refresh() throws(AnimatedError) -> Bool {
        thread?.join()
        thread = nil
        return try decoder.refresh()
    }
}

extension Canvas {
    /// Every pixel is transparent black (all bytes 0), as a new or cleared canvas is.
    var isTransparent: Bool {
        let n = pixels.count
        guard let base = UnsafeRawPointer(pixels.baseAddress) else { return true }
        var i = 0
        var any: UInt64 = 0
        while i + 8 <= n { any |= base.loadUnaligned(fromByteOffset: i, as: UInt64.self); i += 8 }
        while i < n { any |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)); i += 1 }
        return any == 0
    }
}
