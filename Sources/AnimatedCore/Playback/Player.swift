/// Plays an animation: schedule, plays, modes, pause/step/seek, speed, and scaled frames.
///
/// The display side. Used from one thread (the screen's), whose loop calls `update()`, draws
/// the frame it returns, and sleeps until `nextDeadline` or input. `update()` never decodes,
/// scales or blocks: a background producer thread (see `FrameBuffer`) composites and scales
/// frames ahead of the playhead. If the frame due is not buffered yet, the schedule stands
/// still until it is (no skipping ahead of what exists, no burst afterwards) and `update()` asks
/// to be polled again shortly.
///
/// Timing: frame k is due at start + Σ display delays before it / speed, on a monotonic clock
/// (`DisplayClock`), so lateness never accumulates. A late display skips to the frame due now
/// (counted in `droppedFrames`; skipped frames are composited, not scaled). At most one frame
/// is drawn per display tick (`maxFPS`); frames shorter than that are merged (`mergedFrames`).
///
/// After calling a control (`togglePause`, `step`, `seek`, `setSpeed`, ...) call `update()`
/// again: the next deadline may have moved.
///
/// Growing sources (`info.provisional`: a pipe, a download): frames join as the decoder indexes
/// them. Until the data ends the first play runs in normal order and, at the last frame that has
/// arrived, waits for the next one with the clock held (no early loop, no burst afterwards);
/// the requested mode and plays apply once the animation is complete. Wire the source's growth
/// to `sourceGrowthHandler`.
public final class Player {
    /// The animation being played.
    public private(set) var info: AnimationInfo
    private let buffer: FrameBuffer
    private var producer: ProducerThread?
    private let time: any TimeSource
    private var options: PlayerOptions
    private var schedule: PlaybackSchedule
    private var clock: DisplayClock
    private var renderSize: RenderSize
    private var generation = 0        // bumped on resize; what is on screen was drawn at one
    private let tick: UInt64          // display tick in ns; 0 = no cap

    private var position: Int         // timeline position being shown (or waited for)
    private var paused = false
    private var suspended = false     // the process is stopped (Ctrl-Z): the clock is held
    private var waiting = true        // clock held until the frame at `position` is buffered
    private var finished = false
    private var growthWait = false    // at the end of the frames so far, clock held, data coming
    private var shownFrame: Int?
    private var shownGeneration = -1
    private var reloadsSeen = 0       // the buffer's `reloads` when the frame on screen was drawn
    private var sentPlayhead: Int
    private var slot: UInt64?         // display slot of the last draw (the tick grid of the cap)
    private var planned: UInt64?      // the schedule deadline last returned
    private var dropped = 0
    private var merged = 0
    private var meter = FrameRateMeter()

    /// How soon to poll while the buffer has not delivered the frame to show (a loop that
    /// also polls `arrivals` wakes as soon as it is delivered).
    package static let pollNanoseconds: UInt64 = 2_000_000
    /// How soon to poll while waiting at the last frame downloaded so far.
    package static let growthPollNanoseconds: UInt64 = 10_000_000

    /// Plays `decoder`, which moves to the producer thread (do not use it afterwards).
    public convenience init(decoder: sending any AnimationDecoder, options: PlayerOptions,
                            scaler: any FrameScaler, renderSize: RenderSize,
                            time: any TimeSource = SystemTimeSource()) throws(AnimatedError) {
        let info = decoder.info
        try self.init(info: info, options: options, scaler: scaler, renderSize: renderSize,
                      time: time, opener: { () throws(AnimatedError) -> any AnimationDecoder in decoder })
    }

    /// Plays the animation described by `info`; `open` creates its decoder and runs once, on
    /// the producer thread. If it throws, `update()` reports the error.
    package convenience init(info: AnimationInfo, options: PlayerOptions, scaler: any FrameScaler,
                            renderSize: RenderSize, time: any TimeSource = SystemTimeSource(),
                            open: @escaping @Sendable () throws(AnimatedError) -> any AnimationDecoder) throws(AnimatedError) {
        try self.init(info: info, options: options, scaler: scaler, renderSize: renderSize,
                      time: time, opener: open)
    }

    /// The display tick of a rate cap, in nanoseconds: 0 (no cap) for none, NaN or infinity,
    /// and at most an hour (a cap of 1e-10 fps made 1e19 ns, past UInt64: a trap).
    static func tick(maxFPS: Double) -> UInt64 {
        guard maxFPS > 0, maxFPS.isFinite else { return 0 }
        return UInt64(min(1e9 / maxFPS, 3.6e12).rounded())
    }

    private init(info: AnimationInfo, options: PlayerOptions, scaler: any FrameScaler,
                 renderSize: RenderSize, time: any TimeSource,
                 opener: sending @escaping () throws(AnimatedError) -> any AnimationDecoder) throws(AnimatedError) {
        guard info.frameCount > 0 else { throw .invalid("no frames") }
        self.info = info
        var options = options
        options.speed = Self.clampSpeed(options.speed)
        self.options = options
        let order = Self.order(for: info, options: options)
        tick = Self.tick(maxFPS: options.maxFPS)
        schedule = PlaybackSchedule(info: info, order: order, timelessFrameNanoseconds: Self.timelessFrame(tick))
        let size = RenderSize(width: max(1, renderSize.width), height: max(1, renderSize.height))
        self.renderSize = size
        self.time = time
        position = schedule.firstPosition
        sentPlayhead = position
        clock = DisplayClock(now: time.now(), nominal: schedule.start(of: position),
                             speed: options.speed, held: true)
        buffer = FrameBuffer(order: order, playhead: position, size: size, scaler: scaler,
                             budget: options.bufferBytes ?? MemoryBudget.systemDefault())
        let producer = FrameProducer(buffer: buffer)
        // Bytes may have arrived between indexing and now: look once at the start.
        if info.provisional { buffer.noteSourceGrowth() }
        self.producer = try ProducerThread { producer.run(open: opener) }
    }

    /// How long each frame of an animation whose delays are all 0 lasts (raw delays): one
    /// display tick, i.e. as fast as the rate cap allows; 100 ms without a cap.
    static func timelessFrame(_ tick: UInt64) -> Int { tick > 0 ? Int(tick) : 100_000_000 }

    /// The order to play in: while the data is still arriving, one play forward.
    private static func order(for info: AnimationInfo, options: PlayerOptions) -> PlaybackOrder {
        info.provisional
            ? PlaybackOrder(frameCount: info.frameCount, mode: .normal, plays: 1)
            : PlaybackOrder(frameCount: info.frameCount, mode: options.mode, plays: options.plays ?? info.plays)
    }

    /// For an output that keeps frames in the terminal: what it reports there lets the buffer
    /// keep placeholders instead of data (see `TerminalFrames`). Such an output's preparer is
    /// `TerminalKeepsFrames`, so the producer already prepares only a quarter of the buffer's
    /// budget ahead: the frames shown become placeholders, and data prepared early would only
    /// be held longer.
    package func terminalFrames() -> TerminalFrames {
        TerminalFrames(buffer: buffer)
    }

    /// The frame last drawn, with its data even if the buffer keeps a placeholder for it (the
    /// producer prepares it again): for printing the last frame after playback. Waits at most
    /// `timeoutNanoseconds`; nil if nothing was drawn or the frame did not come.
    package func preparedFrameOnScreen(timeoutNanoseconds: UInt64) -> ScaledFrame? {
        guard let shownFrame else { return nil }
        return buffer.preparedFrame(shownFrame, deadline: MonotonicClock.nanoseconds() + timeoutNanoseconds)
    }

    /// Readable once the frame `update()` last found missing (`waiting`) is buffered, or the
    /// producer failed: a display loop polls it beside its input to draw without delay.
    package var arrivals: ArrivalBell { buffer.arrivals }

    /// The first frame's payload while it is prepared, once it has bytes (an output may write
    /// it as it grows: `FrameStream`); nil otherwise, and after the first call that returned it.
    public func takeFrameStream() -> FrameStream? { buffer.takeStream() }

    /// Call when the source has more bytes (from any thread): the producer indexes them.
    package var sourceGrowthHandler: @Sendable () -> Void {
        { [buffer] in buffer.noteSourceGrowth() }
    }

    /// Takes in a longer (or final) description of a growing animation. The frame on screen,
    /// the place in its time and the plays so far are kept.
    private func adopt(_ next: AnimationInfo, _ now: UInt64) {
        let frame = schedule.order.frame(at: position)
        let elapsed = max(0, (clock.isHeld ? clock.anchorNominal : clock.nominal(at: now)) - schedule.start(of: position))
        info = next
        let order = Self.order(for: next, options: options)
        schedule = PlaybackSchedule(info: next, order: order, timelessFrameNanoseconds: Self.timelessFrame(tick))
        if order.mode != .normal {
            // The first play went forward: continue the chosen order from the frame shown.
            position = order.cyclePosition(of: frame)
            let x = schedule.start(of: position) + min(elapsed, max(0, schedule.duration(of: position) - 1))
            if clock.isHeld { clock.hold(nominal: x, at: now) } else { clock.set(nominal: x, at: now) }
        }
        buffer.setOrder(order, playhead: position)
        sentPlayhead = position
        planned = nil
        if growthWait {
            // Held at the end of the last frame, which is where the next one starts.
            growthWait = false
            if !paused && !waiting { clock.release(at: now) }
        }
    }

    deinit { stop() }

    private static func clampSpeed(_ s: Double) -> Double {
        s.isFinite ? min(PlayerOptions.speedRange.upperBound, max(PlayerOptions.speedRange.lowerBound, s)) : 1
    }

    // MARK: display loop

    /// Advances the schedule to now and says what to draw and when to call again. Never blocks.
    public func update() -> PlayerUpdate {
        let now = time.now()
        if let next = buffer.takePublished() { adopt(next, now) }
        let reloads = buffer.reloads
        if reloads != reloadsSeen {
            // The terminal lost the frames it held: draw the frame due again, with its data.
            reloadsSeen = reloads
            shownGeneration = -1
        }
        if !paused && !suspended && !finished && !waiting && !growthWait { advance(now) }
        let wanted = schedule.order.frame(at: position)
        let needsDraw = shownFrame != wanted || shownGeneration != generation
        var drawn: ScaledFrame?
        if needsDraw || position != sentPlayhead {
            let frame = buffer.frame(at: position)
            sentPlayhead = position
            if needsDraw, let frame {
                if waiting { resumeAfterWait(now) }
                drawn = frame
                if shownFrame != wanted && !paused { meter.record(now) }   // not a redraw or a step
                shownFrame = wanted
                shownGeneration = generation
                noteDraw(now)
            }
        } else if waiting {
            resumeAfterWait(now)        // what is on screen is already the frame (restart, seek)
        }
        let missing = needsDraw && drawn == nil
        if missing {
            if let error = buffer.failure {
                finished = true
                return PlayerUpdate(frame: nil, nextDeadline: nil, finished: true, error: error)
            }
            if shownFrame != wanted && !paused && !waiting {
                // The frame due is not buffered yet: the schedule stands still until it is, so
                // the wait is the only time lost (no skipping past it, no burst after).
                waiting = true
                clock.hold(nominal: currentNominal(now), at: now)
            }
        }
        if !finished && !paused && !waiting && !growthWait && !missing, let end = schedule.end,
           position == schedule.order.lastPosition, clock.nominal(at: now) >= end {
            if info.provisional {
                // The next frame has not arrived: hold the clock where it will start.
                growthWait = true
                clock.hold(nominal: end, at: now)
            } else {
                finished = true
            }
        }
        var deadline: UInt64?
        planned = nil
        if !paused && !suspended && !finished && !waiting && !growthWait {
            deadline = scheduledDeadline(now)
            planned = deadline
        }
        if missing { deadline = min(deadline ?? .max, now + Self.pollNanoseconds) }
        if growthWait { deadline = now + Self.growthPollNanoseconds }
        return PlayerUpdate(frame: drawn, nextDeadline: deadline, finished: finished, waiting: missing)
    }

    /// Moves to the position due now, counting what was skipped.
    private func advance(_ now: UInt64) {
        let due = schedule.position(at: clock.nominal(at: now))
        guard due > position else { return }
        if tick > 0, let slot, now < slot + tick { return }     // display-rate cap
        // Frames due before the deadline we planned were merged on purpose (shorter than a
        // tick); frames due after it were dropped because this call came late.
        var intended = due
        if let planned { intended = max(position + 1, schedule.position(at: clock.nominal(at: planned))) }
        let firstLate = min(intended, due)
        merged += firstLate - position - 1
        dropped += due - firstLate
        position = due
    }

    private func resumeAfterWait(_ now: UInt64) {
        waiting = false
        if !paused && !suspended { clock.release(at: now) }
    }

    private func noteDraw(_ now: UInt64) {
        // The slot is when the frame was due, not when it got drawn, so that a display that
        // wakes a little late does not push every later frame back by a tick.
        var s = min(now, clock.time(atNominal: schedule.start(of: position)) ?? now)
        if tick > 0, let last = slot { s = min(now, max(s, last + tick)) }
        slot = s
    }

    /// When the next frame is due (or the last play ends), respecting the display tick.
    private func scheduledDeadline(_ now: UInt64) -> UInt64? {
        let next: Int
        if let last = schedule.order.lastPosition, position >= last {
            guard let end = schedule.end else { return nil }
            next = end
        } else {
            next = schedule.start(of: position + 1)
        }
        guard var d = clock.time(atNominal: next) else { return nil }
        if tick > 0, let slot { d = max(d, slot + tick) }
        return max(d, now + 1)
    }

    // MARK: controls

    /// Pauses or resumes; the frame on screen keeps the rest of its time.
    public func togglePause() {
        let now = time.now()
        if paused {
            paused = false
            if !waiting && !growthWait && !suspended { clock.release(at: now) }
        } else {
            paused = true
            if !waiting && !growthWait { clock.hold(nominal: currentNominal(now), at: now) }
        }
        meter.reset()
        planned = nil
    }

    /// Holds the clock while the process is stopped (Ctrl-Z): nothing falls due meanwhile, so
    /// nothing is dropped. Unlike `togglePause` it does not touch the user's pause state.
    public func suspend() {
        guard !suspended else { return }
        let now = time.now()
        suspended = true
        if !paused && !waiting && !growthWait { clock.hold(nominal: currentNominal(now), at: now) }
        meter.reset()
        planned = nil
    }

    /// Continues after `suspend()` from the same frame, with the rest of its time.
    public func resume() {
        guard suspended else { return }
        suspended = false
        if !paused && !waiting && !growthWait { clock.release(at: time.now()) }
        planned = nil
    }

    /// Pauses and steps `delta` frames in playback order, wrapping within the current play.
    public func step(_ delta: Int) {
        let now = time.now()
        paused = true
        let order = schedule.order
        let base = order.play(at: position) * order.cycleLength
        var p = (position - base + delta) % order.cycleLength
        if p < 0 { p += order.cycleLength }
        jump(to: base + p, at: now)
    }

    /// Sets the rate (clamped to 0.1–10) from now on, without moving the playhead.
    public func setSpeed(_ speed: Double) {
        let now = time.now()
        let s = Self.clampSpeed(speed)
        let x = clock.isHeld ? clock.anchorNominal : currentNominal(now)
        clock.setSpeed(s, nominal: x, at: now)
        options.speed = s
        planned = nil
    }

    /// Reverses the direction: normal ↔ reverse; a bounce turns round mid-trip. The frame on
    /// screen and its remaining time are kept; the play count is kept.
    public func toggleReverse() {
        if info.provisional {
            // Applies once the animation is complete (the first play runs forward).
            options.mode = options.mode == .normal ? .reverse : options.mode == .reverse ? .normal : .bounce
            return
        }
        let now = time.now()
        let old = schedule
        let order = old.order
        let elapsed = max(0, (clock.isHeld ? clock.anchorNominal : currentNominal(now)) - old.start(of: position))
        let c = order.cycleLength
        let base = order.play(at: position) * c
        let p = position - base                       // == c at a bounce's landing
        let mode: PlaybackMode
        let newP: Int
        switch order.mode {
        case .normal: mode = .reverse; newP = order.frameCount - 1 - p
        case .reverse: mode = .normal; newP = order.frameCount - 1 - p
        case .bounce: mode = .bounce; newP = (c - p) % c
        }
        let newOrder = PlaybackOrder(frameCount: order.frameCount, mode: mode, plays: order.plays)
        schedule = PlaybackSchedule(info: info, order: newOrder, timelessFrameNanoseconds: Self.timelessFrame(tick))
        position = base + newP
        let start = schedule.start(of: position)
        let x = start + min(elapsed, max(0, schedule.duration(of: position) - 1))
        if clock.isHeld { clock.hold(nominal: x, at: now) } else { clock.set(nominal: x, at: now) }
        options.mode = mode
        finished = false
        planned = nil
        buffer.setOrder(newOrder, playhead: position)
        sentPlayhead = position
    }

    /// Back to the first frame of play 1 (pause state kept).
    public func restart() {
        jump(to: schedule.firstPosition, at: time.now())
    }

    /// Shows `frame` (clamped), at its first position in the current play; pause state kept.
    public func seek(to frame: Int) {
        let order = schedule.order
        let f = min(max(0, frame), order.frameCount - 1)
        let base = order.play(at: position) * order.cycleLength
        jump(to: base + order.cyclePosition(of: f), at: time.now())
    }

    /// New render target size (terminal resize), or a new output's `scaler` (its frames are
    /// prepared differently): buffered frames are prepared again, the place and the schedule
    /// are kept.
    public func resize(to size: RenderSize, scaler: (any FrameScaler)? = nil) {
        let size = RenderSize(width: max(1, size.width), height: max(1, size.height))
        guard size != renderSize || scaler != nil else { return }
        renderSize = size
        generation += 1
        buffer.resize(to: size, scaler: scaler)
    }

    /// Stops the producer thread (also done on deinit). The player shows nothing new after.
    public func stop() {
        requestStop()
        producer?.join()
        producer = nil
    }

    /// Tells the producer to stop after the frame in hand, without waiting for it.
    func requestStop() { buffer.quit() }

    /// Indices of the frames in the buffer (tests, diagnostics).
    var bufferedFrames: [Int] { buffer.cachedFrames }

    /// Blocks until the producer has buffered everything it wants right now (the frame to show
    /// and the look-ahead window), or failed, for at most `timeoutNanoseconds` of real time.
    /// True if it got there. For tests and for a screen that prefers to wait before starting.
    @discardableResult
    public func waitUntilBuffered(timeoutNanoseconds: UInt64? = nil) -> Bool {
        buffer.waitUntilIdle(deadline: timeoutNanoseconds.map { MonotonicClock.nanoseconds() + $0 })
    }

    // MARK: state

    /// Figures for a status line: position, plays, rate, buffer.
    public var status: PlayerStatus {
        let stats = buffer.stats
        let order = schedule.order
        var s = PlayerStatus(
            frameIndex: order.frame(at: position), frameCount: info.frameCount,
            play: order.play(at: position) + 1, plays: order.plays,
            effectiveFPS: meter.rate, droppedFrames: dropped,
            speed: options.speed, mode: options.mode, paused: paused, finished: finished,
            bufferBytes: stats.bytes, bufferBudget: stats.budget, framesCached: stats.framesCached)
        s.mergedFrames = merged
        s.framesDecoded = stats.framesDecoded
        s.framesScaled = stats.framesScaled
        s.waiting = waiting
        return s
    }

    /// Frames found corrupt while compositing so far, with the reason (what decoded was still
    /// shown): the per-frame problems `Compositor.problems` lists, for warnings after playback.
    public var frameProblems: [Int: String] { buffer.problems }

    /// The frame buffer's figures (bytes, peak, decodes, evictions).
    var bufferStats: FrameBufferStats { buffer.stats }

    /// The timeline position being shown (for tests and diagnostics).
    var timelinePosition: Int { position }

    // MARK: helpers

    /// Nominal time now, kept within the frame on screen (a display that is behind must not
    /// jump when pausing or changing speed).
    private func currentNominal(_ now: UInt64) -> Int {
        let x = clock.nominal(at: now)
        let s = schedule.start(of: position)
        let e = schedule.start(of: position + 1)
        return min(max(x, s), max(s, e - 1))
    }

    /// Goes to timeline position `t`: held there if paused, else waiting for its frame and
    /// then playing on from its start.
    private func jump(to t: Int, at now: UInt64) {
        meter.reset()
        position = t
        finished = false
        planned = nil
        waiting = !paused
        clock.hold(nominal: schedule.start(of: t), at: now)
        _ = buffer.frame(at: t)           // point the producer at it straight away
        sentPlayhead = t
    }
}
