/// A monotonic time source in nanoseconds (injected in tests).
public protocol TimeSource: Sendable {
    func now() -> UInt64
}

public struct SystemTimeSource: TimeSource {
    public init() {}
    public func now() -> UInt64 { MonotonicClock.nanoseconds() }
}
