import Testing
@testable import AnimatedCore

/// DelaySchedule: what the encoders store for display durations.
@Suite struct EncoderDelayTests {
    @Test func gifCarriesTheRemainderSoTheTotalStaysRight() {
        var s = DelaySchedule.gif
        // 30 fps: 33.33 ms per frame, stored as 3 or 4 cs, ending on the nearest centisecond.
        let cs = (0..<30).map { _ in s.next(1000.0 / 30) }
        #expect(Set(cs) == [3, 4])
        #expect(cs.reduce(0, +) == 100)
        var end = 0.0, written = 0
        for c in cs {
            end += 1000.0 / 30; written += c
            #expect(abs(Double(written * 10) - end) <= 5)
        }
    }

    @Test func neverWritesADelayBrowsersWouldStretch() {
        var gif = DelaySchedule.gif
        // 100 fps: 10 ms frames would be shown for 100 ms; 20 ms is the shortest GIF delay kept.
        let cs = (0..<10).map { _ in gif.next(10) }
        #expect(cs.allSatisfy { $0 >= 2 })
        var ms = DelaySchedule.milliseconds
        let d = [5.0, 5, 100, 100].map { ms.next($0) }
        #expect(d[0] == 11 && d[1] == 11)
        // The 12 ms taken by the first two frames comes back from the next one.
        #expect(d[2] == 88 && d[3] == 100)
    }

    @Test func longDelaysAreClampedWithoutShorteningLaterFrames() {
        var gif = DelaySchedule.gif
        #expect(gif.next(1_000_000) == 0xFFFF)
        #expect(gif.next(100) == 10)
    }

    @Test func apngDelayFractions() {
        #expect(APNGAnimationEncoder.fraction(delayMs: 40) == (40, 1000))
        #expect(APNGAnimationEncoder.fraction(delayMs: 100_000) == (10_000, 100))
    }
}
