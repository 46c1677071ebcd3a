import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// The frame buffer: decode-once caching, byte budget, eviction order, producer lifecycle.
@Suite struct PlaybackBufferTests {
    @Test func fittingAnimationDecodesEachFrameOnceOverThreePlays() throws {
        let time = ManualTime()
        let decoder = SolidDecoder(frames: 300, delayMs: 20, width: 16, height: 16, plays: 3)
        let decodes = decoder.decodes
        let scaler = CountingScaler(frames: 300)
        // Default (memory-aware) budget; 300 frames of 16×8 px at render size fit easily.
        let p = try makePlayer(decoder, PlayerOptions(), size: RenderSize(width: 16, height: 8),
                               time: time, scaler: scaler)
        let run = play(p, time)
        #expect(run.finished)
        #expect(run.frames == Array(0..<300) + Array(0..<300) + Array(0..<300))
        #expect(decodes.perFrame.allSatisfy { $0 == 1 })
        #expect(scaler.calls.perFrame.allSatisfy { $0 == 1 })
        let s = p.status
        #expect(s.framesDecoded == 300 && s.framesCached == 300 && s.bufferBytes == 300 * 16 * 8 * 4)
        #expect(s.droppedFrames == 0 && s.play == 3)
    }

    @Test func tinyBudgetStaysUnderItAndKeepsOrder() throws {
        let time = ManualTime()
        let frameBytes = 16 * 8 * 4
        let budget = 10 * frameBytes + 100
        let decoder = SolidDecoder(frames: 300, delayMs: 20, width: 16, height: 16, plays: 2)
        let decodes = decoder.decodes
        let p = try makePlayer(decoder, PlayerOptions(bufferBytes: budget), size: RenderSize(width: 16, height: 8),
                               time: time)
        var run = Run()
        var u = settle(p)
        while true {
            if let f = u.frame { run.frames.append(SolidDecoder.index(of: f)) }
            #expect(p.status.bufferBytes <= budget)
            if u.finished { break }
            time.set(u.nextDeadline!)
            u = settle(p)
        }
        #expect(run.frames == Array(0..<300) + Array(0..<300))
        let stats = p.bufferStats
        #expect(stats.peakBytes <= budget && stats.evictions > 0)
        // Streaming decodes each frame once per play, never more.
        #expect(decodes.perFrame.allSatisfy { $0 == 2 })
        #expect(p.status.droppedFrames == 0)
    }

    @Test func tinyBudgetReverseWithoutKeyframes() throws {
        // Reverse play of an animation with no keyframe but the first: every frame is a replay
        // from frame 0, yet the pixels and the order are right and the budget holds.
        let time = ManualTime()
        let decoder = TrailDecoder(frames: 64, delayMs: 20)
        let decodes = decoder.decodes
        let budget = 8 * 16 * 4 * 4
        let p = try makePlayer(decoder, PlayerOptions(mode: .reverse, bufferBytes: budget), time: time)
        let run = play(p, time, id: TrailDecoder.index)
        #expect(run.frames == Array((0..<64).reversed()))
        #expect(p.bufferStats.peakBytes <= budget)
        // One replay refills half a window: far fewer than the 2 080 decodes of one replay per frame.
        #expect(decodes.total < 700)
    }

    /// A frame held larger than the others (the sixel output's first, kept uncompressed) does
    /// not size the window: the budget still holds as many of the others as fit.
    @Test func frameOfUntypicalSizeDoesNotSizeTheWindow() throws {
        let frameBytes = 8 * 8 * 4
        var cached: [Bool: Int] = [:]
        for typical in [false, true] {
            let time = ManualTime()
            let p = try makePlayer(SolidDecoder(frames: 40), PlayerOptions(bufferBytes: 12 * frameBytes), time: time,
                                   scaler: LargeFirstFrameScaler(typical: typical))
            let u = settle(p)
            #expect(u.frame.map(SolidDecoder.index) == 0)
            p.waitUntilBuffered()
            cached[typical] = p.bufferedFrames.count
        }
        // Sized by frame 0 (four frames' bytes): 3 slots; by the others: 12.
        #expect(cached[true] == 3)
        #expect(cached[false]! >= 10)
    }

    @Test func budgetSmallerThanOneFrameStillPlays() throws {
        let time = ManualTime()
        let p = try makePlayer(TrailDecoder(frames: 20), PlayerOptions(mode: .bounce, bufferBytes: 1), time: time)
        let run = play(p, time, id: TrailDecoder.index)
        #expect(run.frames == Array(0..<20) + Array((0..<19).reversed()))
        #expect(run.finished)
        // One frame at a time: never more than the frame being shown.
        #expect(p.bufferStats.peakBytes == 16 * 2 * 4)
    }

    @Test func evictionFollowsPlaybackDirection() throws {
        let time = ManualTime()
        let t0 = time.now()
        let r = try makePlayer(SolidDecoder(frames: 50), PlayerOptions(mode: .reverse, maxFPS: 0, bufferBytes: 10 * 256),
                               time: time)
        _ = settle(r)
        r.waitUntilBuffered()
        #expect(r.bufferedFrames == Array(40...49))
        time.set(t0 + ms(500))
        #expect(settle(r).frame.map(SolidDecoder.index) == 44)
        r.waitUntilBuffered()
        #expect(r.bufferedFrames == Array(35...44))

        // Looping reverse: the window wraps round to the end of the next play.
        let time2 = ManualTime()
        let w = try makePlayer(SolidDecoder(frames: 10, plays: 0),
                               PlayerOptions(mode: .reverse, maxFPS: 0, bufferBytes: 4 * 256), time: time2)
        _ = settle(w)
        time2.advance(ms: 800)
        #expect(settle(w).frame.map(SolidDecoder.index) == 1)
        w.waitUntilBuffered()
        #expect(w.bufferedFrames == [0, 1, 8, 9])

        // Bounce: after the fold frames come back; the farthest (frame 0) went first.
        let time3 = ManualTime()
        let b = try makePlayer(SolidDecoder(frames: 10, plays: 0),
                               PlayerOptions(mode: .bounce, maxFPS: 0, bufferBytes: 4 * 256), time: time3)
        _ = settle(b)
        b.waitUntilBuffered()
        #expect(b.bufferedFrames == [0, 1, 2, 3])
        time3.advance(ms: 800)
        #expect(settle(b).frame.map(SolidDecoder.index) == 8)
        b.waitUntilBuffered()
        #expect(b.bufferedFrames == [3, 7, 8, 9])
    }

    @Test func producerSleepsWhenTheWindowIsFull() throws {
        let time = ManualTime()
        let p = try makePlayer(SolidDecoder(frames: 20), PlayerOptions(bufferBytes: 5 * 256), time: time)
        _ = settle(p)
        p.waitUntilBuffered()
        let passes = p.bufferStats.producerPasses
        for _ in 0..<1000 { _ = p.update() }            // nothing changes: nobody wakes it
        #expect(p.bufferStats.producerPasses == passes)
        #expect(p.bufferedFrames == [0, 1, 2, 3, 4])
        time.advance(ms: 100)
        _ = settle(p)
        p.waitUntilBuffered()
        #expect(p.bufferStats.producerPasses > passes)
        #expect(p.bufferedFrames == [1, 2, 3, 4, 5])
    }

    @Test func stopTakesEffectAfterTheFrameInHand() throws {
        let time = ManualTime()
        let gate = Gate()
        let decoder = GatedDecoder(frames: 100, gateAt: 5, gate: gate)
        let decodes = decoder.decodes
        let p = try makePlayer(decoder, PlayerOptions(), time: time)
        gate.waitUntilReached()             // the producer is inside frame 5
        p.requestStop()
        gate.open()
        p.stop()                            // joins the producer thread
        #expect(decodes.total == 6)
        p.stop()                            // idempotent
    }

    @Test func decoderThatFailsToOpenIsReported() throws {
        let time = ManualTime()
        let info = SolidDecoder(frames: 3).info
        let p = try Player(info: info, options: PlayerOptions(), scaler: NearestScaler(),
                           renderSize: RenderSize(width: 8, height: 8), time: time,
                           open: { () throws(AnimatedError) -> any AnimationDecoder in
                               throw AnimatedError.invalid("truncated header")
                           })
        let u = settle(p)
        #expect(u.error == .invalid("truncated header"))
        #expect(u.finished && u.frame == nil && u.nextDeadline == nil)
    }

    @Test func factoryOpensTheDecoderOnTheProducer() throws {
        let time = ManualTime()
        let info = SolidDecoder(frames: 4).info
        let p = try Player(info: info, options: PlayerOptions(), scaler: NearestScaler(),
                           renderSize: RenderSize(width: 8, height: 8), time: time,
                           open: { () throws(AnimatedError) -> any AnimationDecoder in SolidDecoder(frames: 4) })
        #expect(play(p, time).frames == [0, 1, 2, 3])
    }

    @Test func emptyAnimationIsRejected() {
        let info = AnimationInfo(format: .gif, width: 1, height: 1, frames: [], plays: 1)
        #expect(throws: AnimatedError.invalid("no frames")) {
            try Player(info: info, options: PlayerOptions(), scaler: NearestScaler(),
                       renderSize: RenderSize(width: 1, height: 1), time: ManualTime(),
                       open: { () throws(AnimatedError) -> any AnimationDecoder in SolidDecoder(frames: 1) })
        }
    }
}

/// Lets a test hold the producer inside a decode.
final class Gate: Sendable {
    private struct State: Sendable { var reached = false; var open = false }
    private let monitor = Monitor(State())

    /// Called by the decoder: announces arrival, then waits until opened.
    func arriveAndWait() {
        _ = monitor.wait { s -> MonitorStep<Bool> in
            let first = !s.reached
            s.reached = true
            return s.open ? .done(true) : .sleep(notify: first)
        }
    }

    func waitUntilReached() {
        _ = monitor.wait { s -> MonitorStep<Bool> in s.reached ? .done(true) : .sleep(notify: false) }
    }

    func open() {
        monitor.withLock { $0.open = true }
        monitor.broadcast()
    }
}

/// A solid-colour decoder that stops inside frame `gateAt` until its gate opens.
final class GatedDecoder: AnimationDecoder {
    private let inner: SolidDecoder
    private let gateAt: Int
    private let gate: Gate
    var info: AnimationInfo { inner.info }
    var decodes: CallCounter { inner.decodes }

    init(frames: Int, gateAt: Int, gate: Gate) {
        inner = SolidDecoder(frames: frames)
        self.gateAt = gateAt
        self.gate = gate
    }

    func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        if index == gateAt { gate.arriveAndWait() }
        try inner.blend(frame: index, onto: canvas)
    }
}
