import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// The schedule at the decoding limits: 141 000 frames of 65 535 s each (an APNG can store that
/// inside the default limits) sum past Int.max nanoseconds. Times saturate instead of wrapping
/// (release) or trapping (debug), and stay ordered.
@Suite struct PlaybackScheduleLimitTests {
    static let frames = 141_000
    static let delayMs = 65_535_000.0

    /// `PlayerOptions.maxFPS` is public: any Double is a tick, never a trap (1e-10 fps made
    /// 1e19 ns, past UInt64).
    @Test func displayTicksOfExtremeRates() {
        #expect(Player.tick(maxFPS: 60) == 16_666_667)
        #expect(Player.tick(maxFPS: 1e-10) == 3_600_000_000_000 && Player.tick(maxFPS: .leastNonzeroMagnitude) == 3_600_000_000_000)
        for none in [0, -1, .infinity, -.infinity, .nan] as [Double] { #expect(Player.tick(maxFPS: none) == 0) }
        #expect(Player.tick(maxFPS: .greatestFiniteMagnitude) == 0)
    }

    @Test(arguments: [PlaybackMode.normal, .reverse, .bounce])
    func longestDelaysOnManyFramesSaturate(_ mode: PlaybackMode) {
        for plays in [0, 1, 3, Int.max] {
            let order = PlaybackOrder(frameCount: Self.frames, mode: mode, plays: plays)
            let s = PlaybackSchedule(durations: [Double](repeating: Self.delayMs, count: Self.frames), order: order)
            #expect(s.cycleNanoseconds > 0 && s.cycleNanoseconds <= PlaybackSchedule.maxCycleNanoseconds * 2)
            if let end = s.end { #expect(end >= s.cycleNanoseconds) }
            // Starts never decrease, across the first play and into the next ones.
            var last = -1
            for t in Set([0, 1, 2, 1000, Self.frames / 2, Self.frames - 2, Self.frames - 1, Self.frames,
                          order.cycleLength - 1, order.cycleLength, order.cycleLength + 5, 3 * order.cycleLength]).sorted() {
                let st = s.start(of: t)
                #expect(st >= last, "\(mode) plays \(plays) position \(t)")
                last = st
                #expect(s.duration(of: t) >= 0)
            }
            // A position's start maps back to a position starting then (past the cap, frames
            // have no duration left and are passed over); times past the end stay on the timeline.
            for t in [0, 7, Self.frames / 3] {
                let p = s.position(at: s.start(of: t))
                #expect(s.start(of: p) == s.start(of: t), "\(mode) plays \(plays) position \(t)")
            }
            #expect(s.position(at: Int.max) >= 0)
            if let lp = order.lastPosition { #expect(s.position(at: Int.max) == lp) }
        }
    }

    /// The first frames keep their exact times; only the far end is capped.
    @Test func earlyFramesKeepExactTimes() {
        let order = PlaybackOrder(frameCount: Self.frames, mode: .normal, plays: 1)
        let s = PlaybackSchedule(durations: [Double](repeating: Self.delayMs, count: Self.frames), order: order)
        #expect(s.start(of: 1) == 65_535_000_000_000)
        #expect(s.start(of: 1000) == 1000 * 65_535_000_000_000)
        #expect(s.cycleNanoseconds == PlaybackSchedule.maxCycleNanoseconds)
    }

    /// Deadlines far ahead at the slowest speed saturate instead of trapping.
    @Test func clockDeadlinesSaturate() {
        let clock = DisplayClock(now: 5_000, nominal: 0, speed: PlayerOptions.speedRange.lowerBound)
        #expect(clock.time(atNominal: Int.max) == UInt64.max)
        #expect(clock.time(atNominal: 1_000) == 5_000 + 10_000)
        let fast = DisplayClock(now: UInt64.max - 10, nominal: 0)
        #expect(fast.time(atNominal: 100) == UInt64.max)
    }
}
