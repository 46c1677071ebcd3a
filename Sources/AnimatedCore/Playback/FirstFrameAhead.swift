/// A decoder whose frame 0 is decoded from the start on a thread of its own, while the caller
/// does other work before the player starts (probing the terminal, choosing the output), so
/// that the producer finds it done: the first image no longer waits for it (a 1280×720 GIF
/// frame in a fresh process takes 4–7 ms, most of it faulting in the canvas's and the
/// decoder's fresh pages on a core shared with the argument parsing; the terminal's answers
/// take as long).
///
/// The side thread also makes the canvas frame 0 is drawn on (a transparent one of the
/// animation's size: zeroing 3.7 MB of new pages at 1280×720 took the caller's thread 4 ms).
/// A `Compositor` takes that canvas as its own (`takeFrameZero`), with the error frame 0's
/// data gave if any (what was drawn before the error included, as the decoder leaves it):
/// no canvas of its own to zero, no copy. Any other call goes to the decoder (frame 0 decoded
/// ahead is then dropped). For complete data only: a growing source's decoder is not wrapped
/// (`refresh` is passed on all the same).
///
/// The side thread touches nothing but the decoder and the `Ahead` it fills; the first call of
/// any method joins it first.
///
/// A GIF file's frame 0 can start even before the caller has its decoder (`Early`): a decoder
/// of its own that indexes frame 0 alone, on the side thread, while the caller's indexes them
/// all (5–7 ms for the 10 MB, 300-frame benchmark video).
package final class FirstFrameAhead: AnimationDecoder, FrameZeroAhead {
    package let info: AnimationInfo
    private let decoder: any AnimationDecoder
    private var ahead: Ahead?
    private var thread: ProducerThread?

    /// Frame 0 as decoded on the side thread. @unchecked Sendable: written by the side thread
    /// alone until it is joined, read by the caller's thread alone afterwards (the join orders
    /// the two).
    fileprivate final class Ahead: @unchecked Sendable {
        var canvas: Canvas?
        var error: AnimatedError?
        /// Frame 0's rectangle as the decoder that drew it saw it.
        var rect: FrameRect?
    }

    /// Frame 0 of a GIF file decoded on a thread of its own from the start, by a decoder that
    /// indexes frame 0 only (`maxFrames` 1), while the caller opens the file's decoder; given
    /// to `FirstFrameAhead.init(_:early:)`, which keeps it if that decoder is a GIF decoder of
    /// the same canvas and frame 0 (the same file), and otherwise decodes frame 0 itself. For
    /// a regular file only (reading a stream would take its bytes). Dropped, it waits for its
    /// thread. @unchecked Sendable: it may be made on one thread and used on another (the CLI
    /// starts one before parsing its arguments and hands it over through a lock), but by one
    /// at a time: `thread` is touched only by its holder, `ahead` as `Ahead` says.
    package final class Early: @unchecked Sendable {
        fileprivate var thread: ProducerThread?
        fileprivate let ahead = Ahead()

        /// Starts on `path` with `options` (their limits hold as for the caller's decoder). A
        /// file that is not a GIF, or that fails to open, leaves nothing.
        package init(path: String, options: DecodeOptions) {
            var options = options
            options.limits.maxFrames = 1
            let ahead = ahead
            thread = try? ProducerThread(what: "first frame") {
                do throws(AnimatedError) {
                    let source = try ByteSource(path: path)
                    let gif = GIFCoder()
                    guard gif.canDecode(head: try source.bytes(at: 0, length: CoderRegistry.headLength)) else { return }
                    let decoder = try gif.open(source, options: options)
                    let info = decoder.info
                    guard info.frameCount > 0, info.width > 0, info.height > 0 else { return }
                    ahead.rect = info.frames[0].rect
                    let canvas = Canvas(width: info.width, height: info.height)
                    ahead.canvas = canvas
                    do throws(AnimatedError) { try decoder.blend(frame: 0, onto: canvas) } catch { ahead.error = error }
                } catch {}      // nothing early: the caller's decoder reports it
            }
        }

        deinit { thread?.join() }

        /// Lets the side thread run on unjoined (see `DecoderAhead.detach`).
        package func detach() {
            thread?.detach()
            thread = nil
        }
    }

    /// The decoder and its thread for the side. @unchecked Sendable: the decoder is used by the
    /// side thread alone until it is joined.
    private struct Side: @unchecked Sendable {
        let decoder: any AnimationDecoder
        let ahead: Ahead
        let width: Int, height: Int
    }

    /// Starts decoding frame 0 of `decoder` (which is used through this object from now on),
    /// or takes the one `early` is decoding when `decoder` is a GIF decoder (the canvas and
    /// frame 0 are compared when it is taken). If no thread can be started, frame 0 is decoded
    /// when first asked for, as without it.
    package init(_ decoder: any AnimationDecoder, early: Early? = nil) {
        self.decoder = decoder
        info = decoder.info
        guard info.frameCount > 0, info.width > 0, info.height > 0 else { return }
        if let early, decoder is GIFDecoder, let thread = early.thread {
            early.thread = nil
            self.thread = thread
            ahead = early.ahead
            return
        }
        let side = Side(decoder: decoder, ahead: Ahead(), width: info.width, height: info.height)
        do {
            side.ahead.rect = info.frames[0].rect
            thread = try ProducerThread(what: "first frame") {
                let canvas = Canvas(width: side.width, height: side.height)
                side.ahead.canvas = canvas
                do throws(AnimatedError) { try side.decoder.blend(frame: 0, onto: canvas) } catch { side.ahead.error = error }
            }
            ahead = side.ahead
        } catch {
            thread = nil
        }
    }

    deinit { thread?.join() }

    /// Frame 0 drawn on a transparent canvas of the animation's size, and the error its data
    /// gave if any, for the caller to keep (what `blend(frame: 0, onto:)` onto a transparent
    /// canvas would have drawn); nil if another call came first, or frame 0 was not decoded
    /// ahead. Joins the side thread. Afterwards every call goes to the decoder.
    package func takeFrameZero() -> (canvas: Canvas, error: AnimatedError?)? {
        thread?.join()
        thread = nil
        guard let ahead else { return nil }
        self.ahead = nil
        guard let canvas = ahead.canvas, canvas.width == info.width, canvas.height == info.height,
              ahead.rect == info.frames[0].rect else { return nil }
        return (canvas, ahead.error)
    }

    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        thread?.join()
        thread = nil
        ahead = nil
        try decoder.blend(frame: index, onto: canvas)
    }

    package func refresh() throws(AnimatedError) -> Bool {
        thread?.join()
        thread = nil
        return try decoder.refresh()
    }
}
