import AnimatedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sleeps until a key arrives on `input`, a signal is noted on `signalFD`, or `deadline`
/// (monotonic nanoseconds; nil: no deadline). Shared by every playback loop.
func waitForInput(_ input: Int32, orSignal signalFD: Int32, until deadline: UInt64?) {
    var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0),
               pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
    if let deadline {
        let now = MonotonicClock.nanoseconds()
        let ns = deadline > now ? deadline - now : 0
        // Rounded up to the next millisecond: never early (the player keeps absolute
        // deadlines, so the sub-millisecond lateness does not accumulate).
        _ = poll(&fds, 2, Int32(min((ns + 999_999) / 1_000_000, 3_600_000)))
    } else {
        _ = poll(&fds, 2, -1)
    }
}
