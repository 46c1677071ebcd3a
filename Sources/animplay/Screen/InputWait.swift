import AnimatedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sleeps until a key arrives on `input`, a signal is noted on `signalFD`, the frame the
/// player waits for arrives (`arrivals`, drained here), or `deadline` (monotonic nanoseconds;
/// nil: no deadline). Shared by every playback loop.
func waitForInput(_ input: Int32, orSignal signalFD: Int32, orArrival arrivals: ArrivalBell? = nil,
                  until deadline: UInt64?) {
    var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0),
               pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
               pollfd(fd: arrivals?.readFD ?? -1, events: Int16(POLLIN), revents: 0)]
    if let deadline {
        let now = MonotonicClock.nanoseconds()
        let ns = deadline > now ? deadline - now : 0
        // Rounded up to the next millisecond: never early (the player keeps absolute
        // deadlines, so the sub-millisecond lateness does not accumulate).
        _ = poll(&fds, 3, Int32(min((ns + 999_999) / 1_000_000, 3_600_000)))
    } else {
        _ = poll(&fds, 3, -1)
    }
    if fds[2].revents != 0 { arrivals?.drain() }
}
