import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// The display clock and player state, driven by an injected time source.
@Suite struct PlaybackPlayerTests {
    @Test func deadlinesAreAbsolute() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(delaysMs: [100, 50, 200, 70]), PlayerOptions(maxFPS: 0), time: time)
        let u0 = settle(p)
        #expect(u0.frame.map(SolidDecoder.index) == 0)
        #expect(u0.nextDeadline == t0 + ms(100))
        // Woken 30 ms late: frame 1 is shown, but frame 2 is still due at 150 ms, not 30 ms late.
        time.set(t0 + ms(130))
        let u1 = settle(p)
        #expect(u1.frame.map(SolidDecoder.index) == 1)
        #expect(u1.nextDeadline == t0 + ms(150))
        time.set(t0 + ms(150))
        let u2 = settle(p)
        #expect(u2.frame.map(SolidDecoder.index) == 2)
        #expect(u2.nextDeadline == t0 + ms(350))
        // An early call (input) draws nothing and keeps the deadline.
        time.set(t0 + ms(200))
        let early = p.update()
        #expect(early.frame == nil && early.nextDeadline == t0 + ms(350))
        #expect(p.status.droppedFrames == 0)
    }

    @Test func arrivalOfTheAwaitedFrameWakesTheDisplay() throws {
        let time = ManualTime()
        let scaler = GatedScaler()
        let p = try makePlayer(SolidDecoder(frames: 4), PlayerOptions(maxFPS: 0), time: time, scaler: scaler)
        let fd = p.arrivals.readFD
        #expect(fd >= 0)
        let first = p.update()
        #expect(first.waiting && first.frame == nil)
        #expect(!readable(fd, timeoutMs: 0))            // nothing has arrived
        scaler.open()
        // The producer delivers frame 0: the bell rings without the display looking again.
        #expect(readable(fd, timeoutMs: 20_000))
        p.arrivals.drain()
        #expect(!readable(fd, timeoutMs: 0))
        let u = p.update()
        #expect(u.frame.map(SolidDecoder.index) == 0 && !u.waiting)
        // Frames buffered ahead while the display waits for none ring nothing.
        p.waitUntilBuffered()
        #expect(p.bufferedFrames.count == 4)
        #expect(!readable(fd, timeoutMs: 0))
    }

    @Test func lateDisplaySkipsToTheDueFrame() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 10), PlayerOptions(maxFPS: 0), time: time)
        _ = settle(p)
        p.waitUntilBuffered()
        time.set(t0 + ms(550))          // frames 1…4 were due while the display slept
        let u = settle(p)
        #expect(u.frame.map(SolidDecoder.index) == 5)
        #expect(p.status.droppedFrames == 4)
        #expect(u.nextDeadline == t0 + ms(600))     // the schedule is not shifted
    }

    @Test func skippedFramesAreCompositedButNotScaled() throws {
        let time = ManualTime()
        let t0 = time.now()
        let scaler = CountingScaler(frames: 10)
        // A window of two frames: the display outruns the producer.
        let p = try makePlayer(TrailDecoder(frames: 10), PlayerOptions(maxFPS: 0, bufferBytes: 2 * 16 * 4),
                               time: time, scaler: scaler)
        _ = settle(p)
        p.waitUntilBuffered()
        time.set(t0 + ms(550))
        let first = p.update()
        #expect(first.waiting && first.frame == nil)
        #expect(first.nextDeadline! <= t0 + ms(550) + Player.pollNanoseconds)
        let u = settle(p)
        // Frame 5 holds the pixels of frames 0…5, composited in order.
        #expect(u.frame.flatMap(TrailDecoder.index) == 5)
        #expect(scaler.calls.perFrame[2...4].allSatisfy { $0 == 0 })
        #expect(p.status.droppedFrames == 4)
        // The display waited for frame 5 (no time passed on the injected clock): the schedule
        // lost nothing, frame 6 is due on time.
        #expect(u.nextDeadline == t0 + ms(600))
    }

    @Test func lateBufferHoldsTheScheduleWithoutBurst() throws {
        // A one-frame budget: every new frame is produced only once the display asks for it.
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 4), PlayerOptions(maxFPS: 0, bufferBytes: 1), time: time)
        _ = settle(p)
        time.set(t0 + ms(100))
        let asked = p.update()
        #expect(asked.frame == nil && asked.waiting && p.status.waiting)
        #expect(asked.nextDeadline == t0 + ms(100) + Player.pollNanoseconds)
        time.set(t0 + ms(130))                      // the producer took 30 ms
        let u = settle(p)
        #expect(u.frame.map(SolidDecoder.index) == 1 && !u.waiting && !p.status.waiting)
        // Frame 1 gets its whole 100 ms from when it could be shown: nothing skipped, no burst.
        #expect(u.nextDeadline == t0 + ms(230))
        #expect(p.status.droppedFrames == 0)
    }

    /// Raw delays that are all 0 (the file gives no time at all): one frame per display tick,
    /// every frame shown, as `info` says; 0-ms frames among timed ones are passed over.
    @Test func timelessFramesPlayOnePerTick() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 6, delayMs: 0), PlayerOptions(maxFPS: 30), time: time)
        let run = play(p, time)
        let tick = UInt64((1e9 / 30).rounded())
        #expect(run.finished && run.frames == [0, 1, 2, 3, 4, 5])
        #expect(run.times.map { ($0 - t0 + tick / 2) / tick } == [0, 1, 2, 3, 4, 5])
        #expect(p.status.mergedFrames == 0)

        let mixed = try makePlayer(SolidDecoder(delaysMs: [40, 0, 40]), PlayerOptions(maxFPS: 60), time: time)
        #expect(play(mixed, time).frames == [0, 2])
    }

    @Test func capMergesFramesShorterThanATick() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 60, delayMs: 5), PlayerOptions(maxFPS: 60), time: time)
        let run = play(p, time)
        let tick = UInt64((1e9 / 60).rounded())
        #expect(run.finished)
        #expect(run.frames.last == 59)
        #expect(run.frames == run.frames.sorted() && Set(run.frames).count == run.frames.count)
        #expect(zip(run.times, run.times.dropFirst()).allSatisfy { $1 - $0 >= tick })
        let s = p.status
        #expect(s.droppedFrames == 0)
        #expect(s.mergedFrames + run.frames.count == 60)
        #expect(run.frames.count <= 300 / 16 + 2)
        // Ends on schedule (the last draw may wait for the end of its tick).
        #expect(time.now() >= t0 + ms(300) && time.now() < t0 + ms(300) + tick)
        // Without a cap every frame is drawn.
        let time2 = ManualTime()
        let q = try makePlayer(SolidDecoder(frames: 60, delayMs: 5), PlayerOptions(maxFPS: 0), time: time2)
        #expect(play(q, time2).frames == Array(0..<60))
    }

    @Test func capDoesNotDriftWithSixtyFPSContent() throws {
        // Frames exactly one tick long, and a display that always wakes 1 ms late: every frame
        // is still drawn (the cap counts from when frames were due, not when they were drawn).
        let time = ManualTime()
        let p = try makePlayer(SolidDecoder(frames: 120, delayMs: 1000.0 / 60), PlayerOptions(maxFPS: 60), time: time)
        var u = settle(p)
        var drawn = 0
        while !u.finished, let d = u.nextDeadline {
            if u.frame != nil { drawn += 1 }
            time.set(d + ms(1))
            u = settle(p)
        }
        if u.frame != nil { drawn += 1 }
        #expect(drawn == 120)
        #expect(p.status.mergedFrames == 0 && p.status.droppedFrames == 0)
    }

    @Test func pauseKeepsTheRemainingTime() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 4), PlayerOptions(maxFPS: 0), time: time)
        _ = settle(p)
        time.set(t0 + ms(40))
        p.togglePause()
        time.set(t0 + ms(5000))
        let paused = p.update()
        #expect(paused.frame == nil && paused.nextDeadline == nil && p.status.paused)
        p.togglePause()
        let resumed = p.update()
        #expect(resumed.frame == nil)
        #expect(resumed.nextDeadline == t0 + ms(5060))   // 60 ms of frame 0 were left
        time.set(t0 + ms(5060))
        #expect(settle(p).frame.map(SolidDecoder.index) == 1)
        #expect(p.status.droppedFrames == 0)
    }

    @Test func suspendHoldsTheClockAndDropsNothing() throws {
        // Ctrl-Z at 40 ms into frame 1 of a 2-play file, stopped for 10 s, then fg.
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 4, plays: 2), PlayerOptions(maxFPS: 0), time: time)
        _ = settle(p)
        p.waitUntilBuffered()
        time.set(t0 + ms(100))
        #expect(settle(p).frame.map(SolidDecoder.index) == 1)
        time.set(t0 + ms(140))
        p.suspend()
        time.set(t0 + ms(10_140))
        let stopped = p.update()
        #expect(stopped.frame == nil && stopped.nextDeadline == nil && !p.status.paused)
        p.resume()
        let resumed = p.update()
        #expect(resumed.frame == nil && !resumed.finished)
        #expect(resumed.nextDeadline == t0 + ms(10_200))   // 60 ms of frame 1 were left
        // The rest of both plays follows in order, nothing dropped.
        let rest = play(p, time)
        #expect(rest.frames == [2, 3, 0, 1, 2, 3])
        #expect(rest.finished && p.status.droppedFrames == 0)
    }

    @Test func suspendKeepsThePauseState() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 4), PlayerOptions(maxFPS: 0), time: time)
        _ = settle(p)
        time.set(t0 + ms(30))
        p.togglePause()
        p.suspend()
        time.set(t0 + ms(3000))
        p.resume()
        #expect(p.update().nextDeadline == nil && p.status.paused)
        p.togglePause()
        #expect(p.update().nextDeadline == t0 + ms(3070))
        #expect(p.status.droppedFrames == 0)
    }

    @Test func stepAndSeek() throws {
        let time = ManualTime()
        let p = try makePlayer(SolidDecoder(frames: 5, plays: 0), PlayerOptions(maxFPS: 0), time: time)
        _ = settle(p)
        p.step(1)                                   // stepping pauses
        var u = settle(p)
        #expect(p.status.paused && u.frame.map(SolidDecoder.index) == 1 && u.nextDeadline == nil)
        p.step(-2)                                  // wraps within the play
        u = settle(p)
        #expect(u.frame.map(SolidDecoder.index) == 4 && p.status.play == 1)
        p.seek(to: 2)
        u = settle(p)
        #expect(u.frame.map(SolidDecoder.index) == 2 && p.status.paused)
        time.advance(ms: 1000)
        #expect(p.update().frame == nil)            // still paused
        p.togglePause()
        u = p.update()
        #expect(u.nextDeadline == time.now() + ms(100))   // a stepped-to frame gets its full time
        p.seek(to: 99)                              // clamped, and playing: shown, then plays on
        u = settle(p)
        #expect(u.frame.map(SolidDecoder.index) == 4 && !p.status.paused)
        #expect(u.nextDeadline == time.now() + ms(100))
    }

    @Test func stepFollowsPlaybackDirection() throws {
        let time = ManualTime()
        let p = try makePlayer(SolidDecoder(frames: 5), PlayerOptions(mode: .reverse, maxFPS: 0), time: time)
        #expect(settle(p).frame.map(SolidDecoder.index) == 4)
        p.step(1)
        #expect(settle(p).frame.map(SolidDecoder.index) == 3)
        let b = try makePlayer(SolidDecoder(frames: 3), PlayerOptions(mode: .bounce, maxFPS: 0), time: time)
        _ = settle(b)
        var seen: [Int] = []
        for _ in 0..<5 { b.step(1); seen.append(settle(b).frame.map(SolidDecoder.index) ?? -1) }
        #expect(seen == [1, 2, 1, 0, 1])
    }

    @Test func speedChangeMidPlay() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 5), PlayerOptions(maxFPS: 0), time: time)
        _ = settle(p)
        time.set(t0 + ms(50))
        p.setSpeed(2)
        var u = p.update()
        #expect(u.frame == nil && u.nextDeadline == t0 + ms(75))     // 50 ms left at 2×
        time.set(t0 + ms(75))
        u = settle(p)
        #expect(u.frame.map(SolidDecoder.index) == 1 && u.nextDeadline == t0 + ms(125))
        p.setSpeed(0.5)
        u = p.update()
        #expect(u.frame == nil && u.nextDeadline == t0 + ms(275))
        p.setSpeed(0.001); #expect(p.status.speed == 0.1)
        p.setSpeed(50); #expect(p.status.speed == 10)
        #expect(p.status.droppedFrames == 0)
    }

    @Test func reverseAndBounceOrders() throws {
        let time = ManualTime()
        let r = try makePlayer(SolidDecoder(frames: 5), PlayerOptions(mode: .reverse, maxFPS: 0), time: time)
        #expect(play(r, time).frames == [4, 3, 2, 1, 0])
        let time2 = ManualTime()
        let t0 = time2.now()
        let b = try makePlayer(SolidDecoder(frames: 5, plays: 2), PlayerOptions(mode: .bounce, maxFPS: 0), time: time2)
        let run = play(b, time2)
        #expect(run.frames == [0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1, 0])
        #expect(run.finished && b.status.play == 2 && b.status.frameIndex == 0)
        #expect(time2.now() == t0 + ms(1600))       // two trips of 8 frames
    }

    @Test func loopCounting() throws {
        // The file's own count (NETSCAPE N → N+1 plays, already in info.plays).
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 3, plays: 2), PlayerOptions(maxFPS: 0), time: time)
        var run = play(p, time)
        #expect(run.frames == [0, 1, 2, 0, 1, 2] && run.finished)
        #expect(time.now() == t0 + ms(600))         // finishes exactly after the nominal duration
        // The last frame stays: nothing new to draw, nothing to wait for.
        time.advance(ms: 10_000)
        let after = p.update()
        #expect(after.frame == nil && after.nextDeadline == nil && after.finished)
        #expect(p.status.frameIndex == 2 && p.status.play == 2 && p.status.plays == 2)
        // --loop overrides it.
        let time2 = ManualTime()
        let q = try makePlayer(SolidDecoder(frames: 3, plays: 2), PlayerOptions(plays: 3, maxFPS: 0), time: time2)
        run = play(q, time2)
        #expect(run.frames.count == 9 && run.finished)
        // 0 = forever.
        let time3 = ManualTime()
        let f = try makePlayer(SolidDecoder(frames: 3, plays: 1), PlayerOptions(plays: 0, maxFPS: 0), time: time3)
        run = play(f, time3, maxDraws: 50)
        #expect(run.frames.count == 50 && !run.finished)
        #expect(f.status.play == 17 && f.status.plays == 0)
        #expect(run.frames == (0..<50).map { $0 % 3 })
    }

    @Test func toggleReverseKeepsFrameAndTime() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 5), PlayerOptions(maxFPS: 0), time: time)
        _ = settle(p)
        time.set(t0 + ms(200))
        _ = settle(p)
        time.set(t0 + ms(230))
        p.toggleReverse()
        let u = p.update()
        #expect(u.frame == nil && p.status.frameIndex == 2 && p.status.mode == .reverse)
        #expect(u.nextDeadline == t0 + ms(300))
        time.set(t0 + ms(300))
        #expect(settle(p).frame.map(SolidDecoder.index) == 1)
        // A bounce turns round mid-trip.
        let time2 = ManualTime()
        let b = try makePlayer(SolidDecoder(frames: 5, plays: 0), PlayerOptions(mode: .bounce, maxFPS: 0), time: time2)
        _ = settle(b)
        time2.advance(ms: 100); _ = settle(b)
        time2.advance(ms: 100); _ = settle(b)                 // frame 2, going forward
        b.toggleReverse()
        let run = play(b, time2, maxDraws: 4)
        #expect(run.frames == [1, 0, 1, 2])
    }

    @Test func resizeInvalidatesButKeepsThePlace() throws {
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(SolidDecoder(frames: 6), PlayerOptions(maxFPS: 0), time: time)
        _ = settle(p)
        // Every frame buffered before the clock jumps: a producer still before frame 3 when the
        // playhead gets there goes on from the playhead, and frames 1 and 2 are never made
        // (seen once, under ThreadSanitizer's slower threads: 4 frames cached, not 6).
        p.waitUntilBuffered()
        time.set(t0 + ms(300))
        let before = settle(p)
        p.waitUntilBuffered()
        #expect(p.bufferStats.framesCached == 6 && p.bufferStats.bytes == 6 * 8 * 8 * 4)
        let droppedBefore = p.status.droppedFrames
        time.set(t0 + ms(320))
        p.resize(to: RenderSize(width: 4, height: 2))
        let u = settle(p)
        #expect(u.frame?.size == RenderSize(width: 4, height: 2))
        #expect(u.frame.map(SolidDecoder.index) == 3)
        #expect(u.nextDeadline == before.nextDeadline)      // the schedule did not move
        p.waitUntilBuffered()
        // Rescaled: the frames still to come in this (only) play, at the new size.
        #expect(p.bufferedFrames == [3, 4, 5] && p.bufferStats.bytes == 3 * 4 * 2 * 4)
        time.set(t0 + ms(400))
        let next = settle(p)
        #expect(next.frame.map(SolidDecoder.index) == 4 && next.frame?.size == RenderSize(width: 4, height: 2))
        #expect(p.status.droppedFrames == droppedBefore)
        p.resize(to: RenderSize(width: 4, height: 2))        // same size: nothing to redraw
        #expect(p.update().frame == nil)
    }

    @Test func fpsCountsShownFramesOverAWindowOfFrames() throws {
        // Frames of 3 s: a time window of 2 s would hold one draw and read 0.
        let time = ManualTime()
        let slow = try makePlayer(SolidDecoder(frames: 4, delayMs: 3000, plays: 0), PlayerOptions(), time: time)
        _ = play(slow, time, maxDraws: 4)
        #expect(abs(slow.status.effectiveFPS - 1.0 / 3) < 0.001)
        // Redraws after resizes are not frames shown: 25 fps stays 25 fps through a burst.
        let p = try makePlayer(SolidDecoder(frames: 50, delayMs: 40, plays: 0), PlayerOptions(), time: time)
        _ = play(p, time, maxDraws: 20)
        #expect(abs(p.status.effectiveFPS - 25) < 0.01)
        for w in 2...9 {
            p.resize(to: RenderSize(width: w, height: w))
            time.advance(ms: 1)
            #expect(settle(p).frame != nil)
        }
        #expect(abs(p.status.effectiveFPS - 25) < 0.01)
        // Steps while paused are not playback; resuming starts the window afresh.
        p.togglePause()
        for _ in 0..<5 { p.step(1); time.advance(ms: 1); _ = settle(p) }
        #expect(p.status.effectiveFPS == 0)
        p.togglePause()
        _ = play(p, time, maxDraws: 10)
        #expect(abs(p.status.effectiveFPS - 25) < 0.01)
    }

    @Test func statusReportsRates() throws {
        let time = ManualTime()
        let p = try makePlayer(SolidDecoder(frames: 50, delayMs: 40, plays: 0), PlayerOptions(), time: time)
        _ = play(p, time, maxDraws: 40)
        p.waitUntilBuffered()
        let s = p.status
        #expect(abs(s.effectiveFPS - 25) < 0.01)
        #expect(s.frameIndex == 39 && s.frameCount == 50 && s.play == 1)
        #expect(s.framesCached == 50 && s.bufferBytes == 50 * 256 && s.bufferBudget > 0)
        #expect(s.framesDecoded == 50)
    }
}
