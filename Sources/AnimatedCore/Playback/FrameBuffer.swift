#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
/// Figures a status line shows about the frame buffer.
struct FrameBufferStats: Sendable, Equatable {
    /// Bytes of scaled frames held, and the budget.
    var bytes: Int
    var budget: Int
    /// Highest `bytes` ever reached.
    var peakBytes: Int
    var framesCached: Int
    /// Of those, placeholders for frames the terminal holds (no bytes).
    var framesHeld: Int
    /// Frames decoded and composited by the producer (replays included), and frames scaled.
    var framesDecoded: Int
    var framesScaled: Int
    var evictions: Int
    /// Times the producer woke up to look for work (it sleeps when the window is full).
    var producerPasses: Int
}

/// The bounded prefetch queue between the producer thread and the display.
///
/// It holds frames already scaled to the render size, keyed by frame index. The producer keeps
/// the *window* buffered: the next `windowLength` timeline positions from the playhead (the
/// frame the display wants), i.e. as many distinct upcoming frames as the byte budget allows.
/// When every frame fits, the window is the whole animation and later plays decode nothing.
/// Otherwise frames outside the window are evicted farthest-first, distance being measured
/// ahead of the playhead in playback order (direction and loop wrap included).
///
/// Frames the terminal holds (kitty keeps every frame it was sent, `TerminalFrames`) are kept
/// as placeholders: the index, size and format without the data, 0 bytes. They stay buffered
/// like any frame (later plays decode and prepare nothing), and the display switches to them
/// by number. When the terminal loses them (its image deleted: a re-layout, a resume), every
/// placeholder goes and the producer prepares the frames again (`reload`). Since the frames
/// shown become placeholders, the data held is the look-ahead: it is kept to a quarter of the
/// budget (`lookahead`, a few seconds of a large video) rather than the whole window.
///
/// Sendable: all state lives in a `Monitor`. The display never blocks on the producer.
final class FrameBuffer: Sendable {
    struct State: Sendable {
        var order: PlaybackOrder
        /// Timeline position the display shows or waits for.
        var playhead: Int
        /// Bumped when the playhead moves backwards, the order or the size changes: the
        /// producer then rescans the window from the playhead.
        var epoch = 0
        var size: RenderSize
        /// Prepares frames for the output (changes with the size when the output changes).
        var scaler: any FrameScaler
        var generation = 0
        /// Bytes of one frame at `size`: an RGBA estimate until frames are measured, then the
        /// largest seen (encoded frames vary in size; the largest keeps the window in budget),
        /// leaving out frames of untypical size (`ScaledFrame.typicalSize`).
        var frameBytes: Int
        var measured = false
        var budget: Int
        var frames: [Int: ScaledFrame] = [:]
        var bytes = 0
        /// Placeholders among `frames`.
        var held = 0
        /// Times the terminal lost what it held (`reload`): the display redraws the frame.
        var reloads = 0
        var peakBytes = 0
        /// The producer found the window full and sleeps.
        var idle = false
        var quit = false
        var failure: AnimatedError?
        /// Frames the compositor found corrupt, with the reason (what decoded was still shown).
        var problems: [Int: String] = [:]
        var framesDecoded = 0
        var framesScaled = 0
        var evictions = 0
        var producerPasses = 0
        /// The source grew: the producer should let the decoder index the new bytes.
        var sourceGrew = false
        /// A newer description of the animation (more frames arrived) for the display to adopt.
        var published: AnimationInfo?
        /// The display asked for the frame at the playhead and it was not there: its arrival
        /// (or a failure) rings `arrivals`.
        var displayWaits = false
        /// The first frame's payload while it is made, for the display to take (`takeStream`).
        var stream: FrameStream?

        /// Distinct frames the budget holds (at least one: a budget smaller than a frame still
        /// plays, one frame at a time).
        var slots: Int { max(1, budget / max(1, frameBytes)) }

        /// Positions [playhead, playhead + windowLength) are kept buffered. A window of `slots`
        /// positions never holds more than `slots` distinct frames; placeholders cost nothing,
        /// so each one widens it by a position. When all frames fit, one whole play is the
        /// window (it covers every frame).
        var windowLength: Int {
            let distinct = slots + held
            return distinct >= order.frameCount ? order.cycleLength : distinct
        }

        /// One past the last position the producer should buffer now.
        var windowEnd: Int { end(of: windowLength) }

        /// Bytes of frames ahead the producer prepares at most, when the terminal holds the
        /// frames shown (nil: the whole window).
        var lookahead: Int?

        /// Positions [playhead, playhead + reach) are prepared now: the window, or with a
        /// `lookahead` as many frames as fit it.
        var reach: Int {
            guard let lookahead else { return windowLength }
            return min(windowLength, max(1, lookahead / max(1, frameBytes)))
        }

        /// One past the last of `length` positions from the playhead.
        func end(of length: Int) -> Int {
            let (end, overflow) = playhead.addingReportingOverflow(length)
            var e = overflow ? Int.max : end
            if let last = order.lastPosition { e = min(e, last + 1) }
            return e
        }

        func inWindow(_ frame: Int) -> Bool {
            guard let d = order.distance(to: frame, from: playhead) else { return false }
            return d < windowLength
        }

        /// Removes out-of-window frames, farthest first, until `incoming` more bytes fit.
        mutating func makeRoom(for incoming: Int) {
            while bytes + incoming > budget {
                var victim = -1, victimDistance = -1
                for index in frames.keys {
                    // Never again (nil) is the farthest of all.
                    let d = order.distance(to: index, from: playhead) ?? Int.max
                    if d >= windowLength && d > victimDistance { victim = index; victimDistance = d }
                }
                guard victim >= 0, let gone = frames.removeValue(forKey: victim) else { return }
                bytes -= gone.byteCount
                if gone.isPlaceholder { held -= 1 }
                evictions += 1
            }
        }
    }

    /// What the producer does next.
    enum Job: Sendable {
        case produce(frame: Int, generation: Int, size: RenderSize, scaler: any FrameScaler)
        /// Let the decoder index bytes that arrived (growing sources).
        case refresh
        case quit
    }

    /// Producer's verdict on a frame it composites on the way to its target.
    enum Verdict: Sendable {
        case scale, skip, abandon
    }

    /// The producer's place in its scan of the window (private to the producer).
    struct Cursor {
        var epoch = -1
        var position = 0
    }

    private let monitor: Monitor<State>
    /// Rung when the frame the display waits for is delivered, or the producer fails.
    let arrivals = ArrivalBell()

    init(order: PlaybackOrder, playhead: Int, size: RenderSize, scaler: any FrameScaler, budget: Int) {
        var state = State(order: order, playhead: playhead, size: size, scaler: scaler,
                          frameBytes: size.width * size.height * 4, budget: max(0, budget))
        state.lookahead = Self.lookahead(for: scaler, budget: state.budget)
        monitor = Monitor(state)
    }

    /// A quarter of the budget for a preparer whose frames the terminal keeps: set from the
    /// start, so that the producer never fills the whole window before the output reports what
    /// the terminal holds (that fill was the peak of a run's memory).
    static func lookahead(for scaler: any FrameScaler, budget: Int) -> Int? {
        scaler is any TerminalKeepsFrames ? budget / lookaheadShare : nil
    }

    // MARK: display side (never blocks for long: only the lock)

    /// The frame at timeline `position` if buffered, and makes `position` the playhead.
    func frame(at position: Int) -> ScaledFrame? {
        let (frame, moved) = monitor.withLock { s -> (ScaledFrame?, Bool) in
            let moved = s.playhead != position
            if moved {
                if position < s.playhead { s.epoch += 1 }
                s.playhead = position
                s.idle = false
            }
            let frame = s.frames[s.order.frame(at: position)]
            s.displayWaits = frame == nil
            return (frame, moved)
        }
        if moved { monitor.broadcast() }
        return frame
    }

    /// New playback order (mode change), keeping the frames buffered.
    func setOrder(_ order: PlaybackOrder, playhead: Int) {
        monitor.withLock { s in
            s.order = order; s.playhead = playhead; s.epoch += 1; s.idle = false
        }
        monitor.broadcast()
    }

    /// New render size, and the preparer for it if the output changed: every prepared frame is
    /// stale (the playhead stays).
    func resize(to size: RenderSize, scaler: (any FrameScaler)? = nil) {
        monitor.withLock { s in
            s.size = size
            if let scaler {
                // Another output: the look-ahead is its own.
                s.scaler = scaler
                s.lookahead = Self.lookahead(for: scaler, budget: s.budget)
            }
            s.generation += 1
            s.frameBytes = size.width * size.height * 4
            s.measured = false
            s.frames.removeAll()
            s.bytes = 0
            s.held = 0
            s.epoch += 1
            s.idle = false
        }
        monitor.broadcast()
    }

    var stats: FrameBufferStats {
        monitor.withLock { s in
            FrameBufferStats(bytes: s.bytes, budget: s.budget, peakBytes: s.peakBytes,
                             framesCached: s.frames.count, framesHeld: s.held, framesDecoded: s.framesDecoded,
                             framesScaled: s.framesScaled, evictions: s.evictions,
                             producerPasses: s.producerPasses)
        }
    }

    var failure: AnimatedError? { monitor.withLock { $0.failure } }

    // MARK: what the terminal holds (display side)

    /// The terminal keeps frame `index` at `size` (it was sent and stays there): the buffer
    /// keeps a placeholder instead. Not the frame playback ends on: that one is printed at the
    /// end (`FrameOutput.printLast`), and the terminal's copy cannot be read back.
    func release(_ index: Int, size: RenderSize) {
        monitor.withLock { s in
            guard let frame = s.frames[index], !frame.isPlaceholder, frame.size == size else { return }
            if let last = s.order.lastPosition, s.order.frame(at: last) == index { return }
            s.frames[index] = frame.placeholder
            s.bytes -= frame.byteCount
            s.held += 1
        }
    }

    /// The terminal no longer holds the frames it was sent: the placeholders go, the producer
    /// prepares those frames again from the playhead, and the display draws the frame due again
    /// (`reloads` changes).
    func reload() {
        monitor.withLock { s in
            guard s.held > 0 else { return }
            s.frames = s.frames.filter { !$0.value.isPlaceholder }
            s.held = 0
            s.reloads += 1
            s.epoch += 1
            s.idle = false
        }
        monitor.broadcast()
    }

    var reloads: Int { monitor.withLock { $0.reloads } }

    /// The look-ahead is this fraction of the budget: 8 MiB of the usual 32, three seconds of
    /// a 1280×720 video's kitty frames.
    static let lookaheadShare = 4

    /// Frame `index` with its data: a placeholder is dropped so that the producer prepares it
    /// again. Waits at most until `deadline` (monotonic ns); nil if the frame is not in the
    /// window (the producer would not prepare it) or did not come in time.
    func preparedFrame(_ index: Int, deadline: UInt64) -> ScaledFrame? {
        let wanted = monitor.withLock { s -> Bool in
            guard s.inWindow(index) else { return false }
            if let f = s.frames[index], f.isPlaceholder {
                s.frames[index] = nil
                s.held -= 1
                s.epoch += 1
                s.idle = false
            }
            return true
        }
        guard wanted else { return nil }
        monitor.broadcast()
        return monitor.wait(deadline: deadline) { s -> MonitorStep<ScaledFrame?> in
            if let f = s.frames[index], !f.isPlaceholder { return .done(f) }
            if s.quit || s.failure != nil || !s.inWindow(index) { return .done(nil) }
            return .sleep(notify: false)
        } ?? nil
    }

    /// Indices of the buffered frames, ascending (tests, diagnostics).
    var cachedFrames: [Int] { monitor.withLock { $0.frames.keys.sorted() } }

    /// Blocks until the producer has buffered what it wants for now (the window, or at least
    /// half of it when the rest needs a replay), failed, or stopped, at most
    /// until `deadline` (monotonic ns). True if it got there.
    func waitUntilIdle(deadline: UInt64?) -> Bool {
        monitor.wait(deadline: deadline) { s -> MonitorStep<Bool> in
            (s.idle || s.quit || s.failure != nil) ? .done(true) : .sleep(notify: false)
        } ?? false
    }

    /// Asks the producer to stop after the frame it is working on.
    func quit() {
        monitor.withLock { $0.quit = true }
        monitor.broadcast()
    }

    // MARK: producer side

    /// The next frame to produce: the first position of the window whose frame is not buffered
    /// (within the `reach`).
    /// Sleeps while there is none; `.quit` once asked to stop.
    ///
    /// `cost(frame)` is how many frames the compositor must composite to reach `frame`. A costly
    /// one (a replay from a keyframe, as in reverse play) waits until the buffered run ahead of
    /// the playhead is down to half the window, so that one replay refills half a window
    /// instead of one frame per replay.
    func nextJob(_ cursor: inout Cursor, cost: (Int) -> Int) -> Job {
        monitor.wait { s -> MonitorStep<Job> in
            if s.quit { return .done(.quit) }
            if s.sourceGrew { s.sourceGrew = false; return .done(.refresh) }
            s.producerPasses += 1
            // Positions before the cursor were buffered and, being in the window, stay so
            // unless the playhead went back or the buffer was cleared (epoch).
            if cursor.epoch != s.epoch || cursor.position < s.playhead {
                cursor = Cursor(epoch: s.epoch, position: s.playhead)
            }
            let end = s.windowEnd
            while cursor.position < end && s.frames[s.order.frame(at: cursor.position)] != nil {
                cursor.position += 1
            }
            let ahead = cursor.position - s.playhead
            if cursor.position < s.end(of: s.reach)
                && !(ahead > 0 && ahead * 2 >= s.windowLength && cost(s.order.frame(at: cursor.position)) > 1) {
                s.idle = false
                return .done(.produce(frame: s.order.frame(at: cursor.position),
                                      generation: s.generation, size: s.size, scaler: s.scaler))
            }
            let becameIdle = !s.idle
            s.idle = true
            return .sleep(notify: becameIdle)
        }!
    }

    /// Whether to scale `frame`, composited on the way to `target`; `.abandon` if the target is
    /// no longer wanted (quit, resize, or the playhead moved away).
    func verdict(on frame: Int, target: Int, generation: Int, decoded: Int) -> Verdict {
        monitor.withLock { s in
            s.framesDecoded = decoded
            if s.quit || s.generation != generation || !s.inWindow(target) { return .abandon }
            return s.frames[frame] == nil && s.inWindow(frame) ? .scale : .skip
        }
    }

    /// A stream for frame `target`'s payload when it is the first frame prepared (nothing is on
    /// screen yet), for a scaler that can stream: the display may take it (`takeStream`) and
    /// write the payload while it grows. Its first bytes ring `arrivals` and yield the core, as
    /// `deliver` does for the frame the display waits for: while a large first frame's bands
    /// are written both cores are busy (the lower half on a side thread), and the display loop,
    /// woken onto this thread's core, waited for its time slice before it took the stream (the
    /// large video in sixel mode, traced: 1–4 ms in 4 of 8 plays; with the yield, 1.4–3.2 ms in
    /// 4 of 12, those woken onto the side thread's core).
    func stream(for target: Int, size: RenderSize, generation: Int) -> FrameStream? {
        let bell = arrivals
        return monitor.withLock { s -> FrameStream? in
            guard s.framesScaled == 0, s.generation == generation, !s.quit else { return nil }
            let stream = FrameStream(index: target, size: size, firstBytes: { bell.ring(); sched_yield() })
            s.stream = stream
            return stream
        }
    }

    /// The first frame's stream once it has bytes, handed over once (display).
    func takeStream() -> FrameStream? {
        monitor.withLock { s -> FrameStream? in
            guard let stream = s.stream, stream.hasBytes else { return nil }
            s.stream = nil
            return stream
        }
    }

    /// Adds a scaled frame, evicting out-of-window frames as needed.
    /// Rings `arrivals` (and yields the core) if it is the frame the display waits for.
    func deliver(_ frame: ScaledFrame, generation: Int, decoded: Int) {
        let awaited = monitor.withLock { s -> Bool in
            s.framesDecoded = decoded
            s.framesScaled += 1
            s.stream = nil      // the display takes the frame now, if it did not take its stream
            guard s.generation == generation, s.frames[frame.index] == nil,
                  s.inWindow(frame.index) else { return false }
            if frame.typicalSize && (!s.measured || frame.byteCount > s.frameBytes) {
                // The frames differ from the estimate: the window changes, rescan.
                if s.frameBytes != frame.byteCount { s.epoch += 1 }
                s.frameBytes = frame.byteCount
                s.measured = true
            }
            s.makeRoom(for: frame.byteCount)
            s.frames[frame.index] = frame
            s.bytes += frame.byteCount
            s.peakBytes = max(s.peakBytes, s.bytes)
            guard s.displayWaits && s.order.frame(at: s.playhead) == frame.index else { return false }
            s.displayWaits = false
            return true
        }
        monitor.broadcast()     // `preparedFrame` may wait for this one
        if awaited {
            arrivals.ring()
            // The display loop the bell wakes is often queued on this thread's core (the
            // scheduler skips its search for an idle core when the cores have been busy, as
            // they are while a first frame is made) and waited there for this thread's time
            // slice to end, 1–3 ms in a third of the plays traced, while this thread went on
            // to the next frame and the other core stayed idle. Yielding lets it run now.
            sched_yield()
        }
    }

    /// The producer's compositor found these frames corrupt (all so far).
    func noteProblems(_ problems: [Int: String]) {
        monitor.withLock { $0.problems = problems }
    }

    var problems: [Int: String] { monitor.withLock { $0.problems } }

    /// The source has more bytes (any thread): wakes the producer to index them.
    func noteSourceGrowth() {
        monitor.withLock { $0.sourceGrew = true; $0.idle = false }
        monitor.broadcast()
    }

    /// Hands the display a newer description of the animation (producer).
    func publish(_ info: AnimationInfo) {
        monitor.withLock { $0.published = info }
    }

    /// The description published since the last call, if any (display).
    func takePublished() -> AnimationInfo? {
        monitor.withLock { s in
            defer { s.published = nil }
            return s.published
        }
    }

    func fail(_ error: AnimatedError) {
        let awaited = monitor.withLock { s -> Bool in
            s.failure = error
            defer { s.displayWaits = false }
            return s.displayWaits
        }
        monitor.broadcast()
        if awaited { arrivals.ring() }
    }
}
