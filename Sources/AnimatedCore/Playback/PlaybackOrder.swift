/// Which frame is shown at each position of the timeline.
///
/// Positions count frames shown from the start of play 1: position `t` lies in play
/// `t / cycleLength` at cycle position `t % cycleLength`. Normal plays 0…n-1, reverse n-1…0,
/// bounce 0…n-1…1 (one forward+backward trip is one play); after its last play a bounce lands on
/// frame 0 again, the end of the backward trip, which then stays displayed.
struct PlaybackOrder: Sendable, Equatable {
    let frameCount: Int
    let mode: PlaybackMode
    /// Total plays; 0 = forever.
    let plays: Int
    /// Positions in one play.
    let cycleLength: Int
    /// The last position of the timeline (its frame stays displayed); nil when playing forever.
    let lastPosition: Int?

    init(frameCount: Int, mode: PlaybackMode, plays: Int) {
        precondition(frameCount > 0)
        self.frameCount = frameCount
        self.mode = mode
        self.plays = max(0, plays)
        let bounces = mode == .bounce && frameCount > 1
        cycleLength = bounces ? 2 * frameCount - 2 : frameCount
        let (positions, overflow) = self.plays.multipliedReportingOverflow(by: cycleLength)
        if self.plays == 0 || overflow || positions == .max {
            lastPosition = nil     // a play count too large to represent is forever in practice
        } else {
            lastPosition = bounces ? positions : positions - 1
        }
    }

    /// The frame at cycle position `p` (0 ≤ p < cycleLength; p == cycleLength is the landing).
    @inline(__always)
    func frame(atCycle p: Int) -> Int {
        switch mode {
        case .normal: return p
        case .reverse: return frameCount - 1 - p
        case .bounce: return p < frameCount ? p : 2 * frameCount - 2 - p
        }
    }

    func frame(at position: Int) -> Int { frame(atCycle: position % cycleLength) }

    /// The first cycle position showing `frame`.
    func cyclePosition(of frame: Int) -> Int {
        mode == .reverse ? frameCount - 1 - frame : frame
    }

    /// How many positions after `position` the timeline next shows `frame` (0 if it shows it
    /// now), or nil if it never does again. Respects direction and loop wrap.
    func distance(to frame: Int, from position: Int) -> Int? {
        let p = position % cycleLength
        var d = cyclePosition(of: frame) - p
        if d < 0 { d += cycleLength }
        if mode == .bounce && frame > 0 && frame < frameCount - 1 {
            var back = 2 * frameCount - 2 - frame - p      // the backward trip's occurrence
            if back < 0 { back += cycleLength }
            d = min(d, back)
        }
        if let last = lastPosition, d > last - position { return nil }
        return d
    }

    /// The play `position` belongs to (0-based); the bounce landing counts as the last play.
    func play(at position: Int) -> Int {
        let k = position / cycleLength
        return plays > 0 ? min(k, plays - 1) : k
    }
}
