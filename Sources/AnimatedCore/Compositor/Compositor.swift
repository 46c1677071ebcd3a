/// Applies disposal and ordering on top of a decoder: one canvas per instance (never shared).
///
/// Sequential access composites incrementally; random access replays from the nearest keyframe
/// at or before the target. Both give identical pixels.
public final class Compositor {
    /// The decoder whose frames are composited.
    public let decoder: any AnimationDecoder
    /// The decoder's animation.
    public private(set) var info: AnimationInfo
    /// Holds the composited image of `currentIndex` (before that frame's disposal).
    public let canvas: Canvas
    /// The frame whose composited image is in `canvas`; -1 before the first.
    public private(set) var currentIndex = -1
    /// Frames whose data was corrupt, with the reason (what decoded is still shown).
    public private(set) var problems: [Int: String] = [:]
    /// How many frames have been decoded and blended, replays included (tests, statistics).
    package private(set) var framesDecoded = 0
    private var saved: [UInt8] = []    // the rect under a dispose-previous frame, before it drew

    /// A compositor with a transparent canvas of the animation's size; or, when the decoder
    /// drew frame 0 ahead (`FrameZeroAhead`, e.g. `FirstFrameAhead`), with that canvas, frame 0
    /// composited on it.
    public init(decoder: any AnimationDecoder) throws(AnimatedError) {
        self.decoder = decoder
        self.info = decoder.info
        guard info.frameCount > 0 else { throw .invalid("no frames") }
        if let ahead = decoder as? any FrameZeroAhead, let (drawn, error) = ahead.takeFrameZero(),
           drawn.width == info.width && drawn.height == info.height {
            // What `draw(0, disposingPrevious: false)` does on a transparent canvas, the blend
            // done already: the area a dispose-previous frame 0 covers is saved transparent.
            canvas = drawn
            let f = info.frames[0]
            if f.dispose == .previous {
                let r = f.rect.clipped(toWidth: info.width, height: info.height)
                saved = [UInt8](repeating: 0, count: r.width * r.height * 4)
            }
            if let error { problems[0] = error.description }
            framesDecoded = 1
            currentIndex = 0
        } else {
            canvas = Canvas(width: info.width, height: info.height)
        }
    }

    /// Takes in frames the decoder indexed since (a growing source); frames already composited
    /// are unchanged, since frames are only ever appended.
    package func refreshInfo() {
        info = decoder.info
    }

    /// The composited canvas of frame `index`. Valid until the next call.
    @discardableResult
    public func frame(at index: Int) -> Canvas {
        precondition(index >= 0 && index < info.frameCount, "frame index out of range")
        if index == currentIndex { return canvas }
        // Going forward only keyframes after the current frame matter: stopping the search there
        // keeps sequential playback linear (a walk back to frame 0 made it quadratic).
        let key = keyframe(atOrBefore: index, stoppingAt: index < currentIndex ? 0 : max(currentIndex, 0))
        if index < currentIndex || key > currentIndex {
            // Replay from the keyframe on a transparent canvas. Nothing is disposed first: the
            // frame before the keyframe was never drawn on this canvas (disposing it would paste
            // pixels saved for some earlier, unrelated request).
            canvas.clear()
            draw(key, disposingPrevious: false)
        }
        while currentIndex < index { draw(currentIndex + 1, disposingPrevious: true) }
        return canvas
    }

    /// The nearest keyframe at or before `index` (frame 0 always is one), or `floor` if there is
    /// none after it.
    func keyframe(atOrBefore index: Int, stoppingAt floor: Int = 0) -> Int {
        var k = index
        while k > floor && !info.frames[k].keyframe { k -= 1 }
        return k
    }

    /// Disposes `currentIndex` (the frame before `next`) when asked, and draws frame `next`.
    private func draw(_ next: Int, disposingPrevious: Bool) {
        if disposingPrevious {
            precondition(currentIndex == next - 1 && currentIndex >= 0, "disposal of a frame not on the canvas")
            let cur = info.frames[currentIndex]
            switch cur.dispose {
            case .none: break
            case .background: canvas.clear(cur.rect)
            case .previous: canvas.restore(cur.rect, from: saved)
            }
        }
        let f = info.frames[next]
        if f.dispose == .previous { canvas.save(f.rect, into: &saved) }
        do {
            try decoder.blend(frame: next, onto: canvas)
        } catch {
            problems[next] = error.description
            if disposingPrevious && f.keyframe {
                // Browsers decode a keyframe alone (Chromium: no required previous frame), so
                // what its damaged data does not supply is transparent, not the frame before:
                // draw it again on a clear canvas, exactly as a replay from it would.
                canvas.clear()
                try? decoder.blend(frame: next, onto: canvas)
            }
        }
        framesDecoded += 1
        currentIndex = next
    }
}

extension Compositor {
    /// Every frame in order, composited (`frame(at:)` for 0, 1, 2, …): the canvas is the
    /// compositor's own and the next frame overwrites it, so copy what must be kept.
    public func frames() -> some Sequence<(index: Int, canvas: Canvas)> {
        sequence(state: 0) { (next: inout Int) -> (index: Int, canvas: Canvas)? in
            guard next < self.info.frameCount else { return nil }
            defer { next += 1 }
            return (next, self.frame(at: next))
        }
    }
}
