import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// The pure parts of the engine: playback order, schedule arithmetic, clock, budget rule.
@Suite struct PlaybackOrderTests {
    func frames(_ o: PlaybackOrder, _ count: Int) -> [Int] { (0..<count).map { o.frame(at: $0) } }

    @Test func ordersOfEachMode() {
        let normal = PlaybackOrder(frameCount: 4, mode: .normal, plays: 2)
        #expect(frames(normal, 8) == [0, 1, 2, 3, 0, 1, 2, 3])
        #expect(normal.lastPosition == 7)
        let reverse = PlaybackOrder(frameCount: 4, mode: .reverse, plays: 2)
        #expect(frames(reverse, 8) == [3, 2, 1, 0, 3, 2, 1, 0])
        #expect(reverse.lastPosition == 7)
        let bounce = PlaybackOrder(frameCount: 4, mode: .bounce, plays: 2)
        #expect(bounce.cycleLength == 6)
        // Two forward+backward trips, landing back on frame 0.
        #expect(frames(bounce, 13) == [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0])
        #expect(bounce.lastPosition == 12)
        #expect(bounce.play(at: 5) == 0 && bounce.play(at: 6) == 1 && bounce.play(at: 12) == 1)
        #expect(PlaybackOrder(frameCount: 4, mode: .normal, plays: 0).lastPosition == nil)
        let single = PlaybackOrder(frameCount: 1, mode: .bounce, plays: 3)
        #expect(frames(single, 3) == [0, 0, 0] && single.lastPosition == 2)
    }

    @Test func distanceRespectsDirectionWrapAndEnd() {
        let bounce = PlaybackOrder(frameCount: 4, mode: .bounce, plays: 0)
        // Position 1 shows frame 1 going forward.
        #expect(bounce.distance(to: 1, from: 1) == 0)
        #expect(bounce.distance(to: 2, from: 1) == 1)
        #expect(bounce.distance(to: 0, from: 1) == 5)
        // Position 4 shows frame 2 coming back: frame 1 is next, frame 3 only on the next trip.
        #expect(bounce.distance(to: 1, from: 4) == 1)
        #expect(bounce.distance(to: 0, from: 4) == 2)
        #expect(bounce.distance(to: 3, from: 4) == 5)
        let reverse = PlaybackOrder(frameCount: 4, mode: .reverse, plays: 0)
        #expect(reverse.distance(to: 0, from: 1) == 2)      // 2, 1, 0
        #expect(reverse.distance(to: 3, from: 1) == 3)      // wraps round
        let once = PlaybackOrder(frameCount: 4, mode: .normal, plays: 1)
        #expect(once.distance(to: 3, from: 2) == 1)
        #expect(once.distance(to: 0, from: 2) == nil)       // the last play does not come back
    }

    @Test func scheduleStartsArePrefixSums() {
        let d: [Double] = [10, 20, 30, 40]
        let n = PlaybackSchedule(durations: d, order: PlaybackOrder(frameCount: 4, mode: .normal, plays: 2))
        #expect((0...8).map { n.start(of: $0) / 1_000_000 } == [0, 10, 30, 60, 100, 110, 130, 160, 200])
        #expect(n.end == 200_000_000)
        #expect(n.position(at: 29_999_999) == 1 && n.position(at: 30_000_000) == 2)
        #expect(n.position(at: 150_000_000) == 6 && n.position(at: 10_000_000_000) == 7)
        let r = PlaybackSchedule(durations: d, order: PlaybackOrder(frameCount: 4, mode: .reverse, plays: 1))
        #expect((0...4).map { r.start(of: $0) / 1_000_000 } == [0, 40, 70, 90, 100])
        let b = PlaybackSchedule(durations: d, order: PlaybackOrder(frameCount: 4, mode: .bounce, plays: 2))
        // Frames 0 1 2 3 2 1 | 0 1 2 3 2 1 | 0
        #expect((0...7).map { b.start(of: $0) / 1_000_000 } == [0, 10, 30, 60, 100, 130, 150, 160])
        #expect(b.cycleNanoseconds == 150_000_000 && b.end == 300_000_000)
        #expect(b.position(at: 299_999_999) == 11 && b.position(at: 300_000_000) == 12)
    }

    @Test func zeroDurationFramesArePassedOver() {
        let s = PlaybackSchedule(durations: [0, 10, 0, 10],
                                 order: PlaybackOrder(frameCount: 4, mode: .normal, plays: 1))
        #expect(s.firstPosition == 1)
        #expect(s.position(at: 10_000_000) == 3)
        // At the very end the last frame shows even if it has no duration.
        let t = PlaybackSchedule(durations: [10, 0], order: PlaybackOrder(frameCount: 2, mode: .normal, plays: 1))
        #expect(t.position(at: 9_999_999) == 0 && t.position(at: 10_000_000) == 1)
        // All-zero delays cannot play: each frame gets 100 ms.
        let z = PlaybackSchedule(durations: [0, 0], order: PlaybackOrder(frameCount: 2, mode: .normal, plays: 1))
        #expect(z.end == 200_000_000)
    }

    @Test func deadlinesDoNotAccumulateError() {
        // 1/60 s frames: after 100 000 plays the start is still the exact integer sum.
        let s = PlaybackSchedule(durations: [1000.0 / 60, 1000.0 / 60, 1000.0 / 60],
                                 order: PlaybackOrder(frameCount: 3, mode: .normal, plays: 0))
        #expect(s.start(of: 300_000) == 300_000 * 16_666_667)
    }

    @Test(arguments: [0.1, 0.37, 1.0, 1.5, 3.3, 10.0])
    func clockDeadlinesMeetNominalTime(speed: Double) {
        let c = DisplayClock(now: 5_000, nominal: 1_234, speed: speed)
        for x in stride(from: 1_235, to: 50_000_000_000, by: 987_654_321) {
            let t = c.time(atNominal: x)!
            #expect(c.nominal(at: t) >= x)                      // due at its deadline…
            #expect(c.nominal(at: t) - x <= Int(speed) + 1)     // …which is not late
        }
    }

    @Test func clockHoldAndSpeedDoNotJump() {
        var c = DisplayClock(now: 0, nominal: 0)
        #expect(c.nominal(at: 100) == 100)
        c.hold(nominal: c.nominal(at: 100), at: 100)
        #expect(c.nominal(at: 10_000) == 100 && c.time(atNominal: 200) == nil)
        c.release(at: 10_000)
        #expect(c.nominal(at: 10_050) == 150)
        c.setSpeed(2, nominal: c.nominal(at: 10_050), at: 10_050)
        #expect(c.nominal(at: 10_050) == 150 && c.nominal(at: 10_150) == 350)
    }

    @Test func budgetRule() {
        let mib = 1 << 20
        // Big machine: the ceiling.
        #expect(MemoryBudget.bytes(physical: 16_384 * mib, available: 8_192 * mib) == MemoryBudget.ceilingBytes)
        // 20 % of physical RAM.
        #expect(MemoryBudget.bytes(physical: 100 * mib, available: 90 * mib) == 20 * mib)
        // 60 % of what is available.
        #expect(MemoryBudget.bytes(physical: 1_000 * mib, available: 30 * mib) == 18 * mib)
        // Never below the floor.
        #expect(MemoryBudget.bytes(physical: 1_000 * mib, available: 2 * mib) == MemoryBudget.floorBytes)
        let here = MemoryBudget.systemDefault()
        #expect(here >= MemoryBudget.floorBytes && here <= MemoryBudget.ceilingBytes)
    }
}
