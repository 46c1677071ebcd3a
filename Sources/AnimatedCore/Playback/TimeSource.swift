/// A monotonic time source in nanoseconds (injected in tests).
public protocol TimeSource: Sendable {
    /// Monotonic nanoseconds.
    func now() -> UInt64
}

/// The monotonic system clock.
public struct SystemTimeSource: TimeSource {
    /// The system clock.
    public init() {}
    /// CLOCK_MONOTONIC, in nanoseconds.
    public func now() -> UInt64 { MonotonicClock.nanoseconds() }
}
