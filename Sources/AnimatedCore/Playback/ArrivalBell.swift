#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe the frame buffer writes a byte to when the frame the display is waiting for arrives,
/// so that a display loop asleep in `poll` wakes then instead of at its next look
/// (`Player.pollNanoseconds`: 2 ms, rounded up to 3 by `poll`, a millisecond or two of the
/// time to the first image). The loop polls `readFD` and calls `drain` when it is readable.
///
/// Sendable: the descriptors are set once in `init`; `ring` and `drain` are single
/// non-blocking system calls, safe from any thread. Without a pipe (none could be made)
/// `readFD` is -1, which `poll` ignores: the display then only polls, as before.
package final class ArrivalBell: Sendable {
    /// Readable from a `ring` until `drain`.
    package let readFD: Int32
    private let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)   // never blocks the producer
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            fds = [-1, -1]
        }
        readFD = fds[0]; writeFD = fds[1]
    }

    deinit {
        if readFD >= 0 { close(readFD) }
        if writeFD >= 0 { close(writeFD) }
    }

    /// Makes `readFD` readable (a full pipe already is).
    func ring() {
        guard writeFD >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe: `readFD` is no longer readable until the next `ring`.
    package func drain() {
        guard readFD >= 0 else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf in
            while read(readFD, buf.baseAddress, 64) > 0 {}
        }
    }
}
