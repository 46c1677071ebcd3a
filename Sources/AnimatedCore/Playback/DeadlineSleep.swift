#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PlayerUpdate {
    /// Sleeps until `nextDeadline` (returns at once when there is none or it has passed): the
    /// simplest display loop a library user writes (`update`, draw, `sleepUntilDeadline`). A
    /// loop that also reads keys waits in `poll` instead, as the CLI does.
    public func sleepUntilDeadline() {
        guard let deadline = nextDeadline else { return }
        let now = MonotonicClock.nanoseconds()
        guard deadline > now else { return }
        var ts = timespec(tv_sec: Int((deadline - now) / 1_000_000_000), tv_nsec: Int((deadline - now) % 1_000_000_000))
        var left = timespec()
        while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
    }
}
