#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Threads nobody joins: the readers that fill a spool (stdin, a FIFO, a download) may block
/// for as long as their input does, and the process must be able to exit without them.
package enum DetachedThread {
    /// Runs `body` on a new detached thread; `what` names it in the error.
    package static func start(_ what: String, _ body: sending @escaping () -> Void) throws(AnimatedError) {
        try ProducerThread(what: what, body).detach()
    }
}

/// Writes all of `bytes` at `offset` (retrying after signals). False on an error (`errno`).
package func pwriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    var done = 0
    while done < bytes.count {
        let r = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
        if r < 0 { if errno == EINTR { continue }; return false }
        done += r
    }
    return true
}
