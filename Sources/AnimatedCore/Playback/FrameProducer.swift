/// The producer thread's loop: owns the decoder and the compositor (neither is Sendable, and
/// neither ever leaves this thread), composites the frames the buffer asks for and scales them
/// to the render size.
struct FrameProducer {
    let buffer: FrameBuffer

    /// Opens the decoder on this thread, then produces until told to quit.
    func run(open: () throws(AnimatedError) -> any AnimationDecoder) {
        let compositor: Compositor
        do {
            compositor = try Compositor(decoder: try open())
        } catch {
            buffer.fail(error)
            return
        }
        var cursor = FrameBuffer.Cursor()
        var reported = 0
        while true {
            switch buffer.nextJob(&cursor, cost: { f in Self.start(toward: f, from: compositor).distance(to: f) + 1 }) {
            case .produce(let target, let generation, let size, let scaler):
                produce(target, generation: generation, size: size, scaler: scaler, with: compositor)
                if compositor.problems.count != reported {
                    reported = compositor.problems.count
                    buffer.noteProblems(compositor.problems)
                }
            case .refresh:
                do {
                    if try compositor.decoder.refresh() {
                        compositor.refreshInfo()
                        buffer.publish(compositor.info)
                    }
                } catch {
                    buffer.fail(error)
                    return
                }
            case .quit:
                return
            }
        }
    }

    /// The first frame to composite on the way to `target`: the next one when going forward
    /// from the compositor's frame, else the keyframe a replay starts from; `target` itself when
    /// the canvas already holds it (only a new size: no decoding at all).
    static func start(toward target: Int, from compositor: Compositor) -> Int {
        let current = compositor.currentIndex
        if target == current { return target }
        let key = compositor.keyframe(atOrBefore: target)
        return (target > current && key <= current) ? current + 1 : key
    }

    /// Composites up to `target` and scales it. The compositor is sequential: frames between its
    /// current frame (or the keyframe a replay starts from) and the target are composited too;
    /// those the buffer wants soon (in reverse play, all of them) are scaled on the way, the
    /// others (frames the display skipped) are not.
    private func produce(_ target: Int, generation: Int, size: RenderSize, scaler: any FrameScaler,
                         with compositor: Compositor) {
        var g = Self.start(toward: target, from: compositor)
        while g < target {
            let canvas = compositor.frame(at: g)
            switch buffer.verdict(on: g, target: target, generation: generation,
                                  decoded: compositor.framesDecoded) {
            case .scale:
                buffer.deliver(scaler.scale(canvas, index: g, to: size), generation: generation,
                               decoded: compositor.framesDecoded)
            case .skip: break
            case .abandon: return
            }
            g += 1
        }
        let canvas = compositor.frame(at: target)
        let frame: ScaledFrame
        if let streaming = scaler as? any StreamingFrameScaler,
           let stream = buffer.stream(for: target, size: size, generation: generation) {
            frame = streaming.scale(canvas, index: target, to: size, streaming: stream)
            stream.end(payloadBytes: frame.payload.count)
        } else {
            frame = scaler.scale(canvas, index: target, to: size)
        }
        buffer.deliver(frame, generation: generation, decoded: compositor.framesDecoded)
    }
}
