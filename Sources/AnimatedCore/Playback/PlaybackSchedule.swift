/// When each timeline position starts, in nominal nanoseconds (speed 1, from the start of play 1).
///
/// Times are integer sums of the display delays, so frame k is due exactly at Σ delays before
/// it, however long the animation runs: no rounding error accumulates.
struct PlaybackSchedule: Sendable {
    let order: PlaybackOrder
    /// prefix[i] = Σ of the display durations of frames 0..<i, in ns (frameCount + 1 entries).
    private let prefix: [Int]
    /// Nominal length of one play.
    let cycleNanoseconds: Int
    /// Nominal time at which the last play ends; nil when playing forever.
    let end: Int?

    /// Cap on the length of one pass through the frames, 2^60 ns (36 years): sums of display
    /// delays saturate there, so that nothing below (bounce cycles, play counts, deadlines) can
    /// overflow. 141 000 frames of 65 535 s, inside the default limits, would reach 2^63.
    static let maxCycleNanoseconds = 1 << 60

    init(info: AnimationInfo, order: PlaybackOrder, timelessFrameNanoseconds: Int = 100_000_000) {
        self.init(durations: info.frames.indices.map { info.displayMs(at: $0) }, order: order,
                  timelessFrameNanoseconds: timelessFrameNanoseconds)
    }

    /// `durations` in milliseconds, one per frame. `timelessFrameNanoseconds`: how long each
    /// frame lasts when every duration is 0 (raw delays of a file that gives no time at all):
    /// the player's display tick, so such a file plays as fast as the display rate cap allows.
    init(durations: [Double], order: PlaybackOrder, timelessFrameNanoseconds: Int = 100_000_000) {
        precondition(durations.count == order.frameCount)
        self.order = order
        var ns = durations.map { ms -> Int in
            // Negative, NaN or absurd delays are treated as 0 and a day respectively.
            guard ms.isFinite, ms > 0 else { return 0 }
            return Int((min(ms, 86_400_000) * 1_000_000).rounded())
        }
        // An animation whose every frame lasts 0 ms would never advance: each frame gets
        // `timelessFrameNanoseconds` (a frame of 0 ms among others is passed over instead).
        if ns.allSatisfy({ $0 == 0 }) { ns = Array(repeating: max(1, timelessFrameNanoseconds), count: ns.count) }
        var sums = [Int](repeating: 0, count: ns.count + 1)
        // Each delay is at most a day (2^46.3 ns), so a capped sum plus one never overflows.
        for i in ns.indices { sums[i + 1] = min(sums[i] + ns[i], Self.maxCycleNanoseconds) }
        prefix = sums
        let n = order.frameCount
        if order.mode == .bounce && n > 1 {
            cycleNanoseconds = sums[n] + sums[n - 1] - sums[1]
        } else {
            cycleNanoseconds = sums[n]
        }
        if order.lastPosition != nil {
            let (e, overflow) = order.plays.multipliedReportingOverflow(by: cycleNanoseconds)
            end = overflow ? nil : e
        } else {
            end = nil
        }
    }

    /// Display duration of `frame` at speed 1, in ns.
    func duration(ofFrame frame: Int) -> Int { prefix[frame + 1] - prefix[frame] }

    /// Start of cycle position `p` (0 ≤ p ≤ cycleLength) within its play.
    @inline(__always)
    func start(atCycle p: Int) -> Int {
        let n = order.frameCount
        switch order.mode {
        case .normal:
            return prefix[p]
        case .reverse:
            return prefix[n] - prefix[n - p]
        case .bounce:
            if p < n || n == 1 { return prefix[p] }
            // Backward trip n-2 … 1: the forward play, then frames from n-2 down past frame(p).
            return prefix[n] + prefix[n - 1] - prefix[2 * n - 1 - p]
        }
    }

    /// Nominal start of timeline position `t` (also valid one past the last position).
    func start(of t: Int) -> Int {
        let c = order.cycleLength
        // Saturates: only a forever-playing timeline centuries long could get there.
        let (plays, o1) = (t / c).multipliedReportingOverflow(by: cycleNanoseconds)
        let (x, o2) = plays.addingReportingOverflow(start(atCycle: t % c))
        return o1 || o2 ? .max : x
    }

    /// Nominal duration of position `t`.
    func duration(of t: Int) -> Int { start(of: t + 1) - start(of: t) }

    /// The position shown at nominal time `x`: the last one starting at or before it (frames of
    /// zero duration are therefore passed over), clamped to the timeline.
    func position(at x: Int) -> Int {
        guard x > 0 else { return firstPosition }
        if let end, let last = order.lastPosition, x >= end { return last }
        let play = x / cycleNanoseconds
        let r = x - play * cycleNanoseconds
        // Binary search: largest p in [0, cycleLength) with start(atCycle: p) ≤ r.
        var lo = 0, hi = order.cycleLength - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if start(atCycle: mid) <= r { lo = mid } else { hi = mid - 1 }
        }
        return play * order.cycleLength + lo
    }

    /// Where playback starts (after any leading zero-duration frames).
    var firstPosition: Int {
        var lo = 0, hi = order.cycleLength - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if start(atCycle: mid) <= 0 { lo = mid } else { hi = mid - 1 }
        }
        if let last = order.lastPosition { return min(lo, last) }
        return lo
    }
}
