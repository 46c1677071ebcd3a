#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes every byte of `bytes` to `fd`, however the kernel splits the write: retries after
/// EINTR (a signal arrived mid-write) and, after EAGAIN (a non-blocking terminal whose buffer is
/// full), waits up to 100 ms for POLLOUT and tries again. Returns 0, or the errno that stopped it
/// (EIO once the terminal has hung up, EPIPE, ENOSPC, ...).
///
/// The one write loop of the package: the CLI's terminal and standard streams and the frame
/// files all go through it.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    guard var p = bytes.baseAddress else { return 0 }
    var left = bytes.count
    while left > 0 {
        let n = write(fd, p, left)
        if n < 0 {
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 100)
                continue
            }
            return e
        }
        p += n; left -= n
    }
    return 0
}
