/// Turns display durations into the delays a format stores, so that what a browser shows keeps
/// the source's times:
///
/// - Delays are whole `unitMs` (GIF: 10 ms centiseconds; APNG and WebP: 1 ms). Each frame ends
///   at the stored unit nearest to where it ends in the source (its end time rounded half up),
///   so rounding errors never add up: the total stays within half a unit of the source's.
/// - Browsers show a delay of 10 ms or less as 100 ms (`TimingPolicy`), so no delay below
///   `minimumUnits` is ever written (GIF: 2 cs = 20 ms; APNG, WebP: 11 ms). A frame that would
///   be shorter is written at the minimum and the time it overshoots is taken from the next
///   frames (never below their minimum either), so the total catches up as soon as it can.
/// - Delays above `maximumUnits` (GIF: 65535 cs) are clamped; that time is lost.
package struct DelaySchedule: Sendable, Equatable {
    /// Milliseconds per stored unit.
    package let unitMs: Double
    /// Shortest delay written, in units.
    package let minimumUnits: Int
    /// Longest delay the format stores, in units.
    package let maximumUnits: Int
    /// Source time so far, ms.
    package private(set) var sourceMs: Double = 0
    /// Units written so far.
    package private(set) var writtenUnits = 0

    package init(unitMs: Double, minimumUnits: Int, maximumUnits: Int) {
        self.unitMs = unitMs; self.minimumUnits = minimumUnits; self.maximumUnits = maximumUnits
    }

    /// GIF: centiseconds, at least 2, at most 65535.
    package static var gif: DelaySchedule { DelaySchedule(unitMs: 10, minimumUnits: 2, maximumUnits: 0xFFFF) }
    /// APNG and WebP: milliseconds, at least 11 (WebP stores at most 2^24 - 1).
    package static var milliseconds: DelaySchedule { DelaySchedule(unitMs: 1, minimumUnits: 11, maximumUnits: 0xFF_FFFF) }

    /// The delay to store for the next frame, shown for `durationMs` in the source.
    package mutating func next(_ durationMs: Double) -> Int {
        sourceMs += max(0, durationMs.isFinite ? durationMs : 0)
        let end = (sourceMs / unitMs + 0.5).rounded(.down)
        let units = min(maximumUnits, max(minimumUnits, Int(min(end, 1e15)) - writtenUnits))
        // A clamped long delay loses its excess rather than shortening every later frame.
        if units == maximumUnits { sourceMs = Double(writtenUnits + units) * unitMs }
        writtenUnits += units
        return units
    }
}
