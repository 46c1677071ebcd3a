/// Maps monotonic real time to nominal playback time (speed 1 nanoseconds on the schedule).
///
/// It is an anchor (real time, nominal time) plus a rate, so a deadline is always computed from
/// the anchor, never by adding per-frame sleeps: lateness does not accumulate. Pausing, waiting
/// for the buffer and speed changes re-anchor at the current nominal time, so nothing jumps.
struct DisplayClock: Sendable {
    private(set) var anchorTime: UInt64
    private(set) var anchorNominal: Int
    private(set) var speed: Double
    /// While held (paused, or waiting for a frame) nominal time stands still.
    private(set) var isHeld: Bool

    init(now: UInt64, nominal: Int = 0, speed: Double = 1, held: Bool = false) {
        anchorTime = now; anchorNominal = nominal; self.speed = speed; isHeld = held
    }

    /// Nominal time at real time `now`.
    func nominal(at now: UInt64) -> Int {
        guard !isHeld, now > anchorTime else { return anchorNominal }
        let elapsed = now - anchorTime
        if speed == 1 { return anchorNominal + Int(elapsed) }
        // Rounded to nearest so that nominal(at: time(atNominal: x)) ≥ x despite float error.
        return anchorNominal + Int((Double(elapsed) * speed).rounded())
    }

    /// Earliest real time at which nominal time reaches `x`; nil while held.
    func time(atNominal x: Int) -> UInt64? {
        guard !isHeld else { return nil }
        guard x > anchorNominal else { return anchorTime }
        let ahead = x - anchorNominal
        let room = UInt64.max - anchorTime
        // Saturates: a deadline decades away (the longest schedules, slow speeds) is "never".
        if speed == 1 { return UInt64(ahead) >= room ? .max : anchorTime + UInt64(ahead) }
        let wait = (Double(ahead) / speed).rounded(.up)
        return wait >= Double(room) ? .max : anchorTime + UInt64(wait)
    }

    /// Re-anchors at nominal `x` now (keeps held or running).
    mutating func set(nominal x: Int, at now: UInt64) {
        anchorTime = now; anchorNominal = x
    }

    /// Stops nominal time at `x`.
    mutating func hold(nominal x: Int, at now: UInt64) {
        anchorTime = now; anchorNominal = x; isHeld = true
    }

    /// Lets nominal time run again from where it was held.
    mutating func release(at now: UInt64) {
        guard isHeld else { return }
        anchorTime = now; isHeld = false
    }

    /// Changes the rate from now on; `x` is the nominal time to continue from.
    mutating func setSpeed(_ newSpeed: Double, nominal x: Int, at now: UInt64) {
        anchorTime = now; anchorNominal = x; speed = newSpeed
    }
}
