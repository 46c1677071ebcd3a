#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Threads nobody joins: the readers that fill a spool (stdin, a FIFO, a download) may block
/// for as long as their input does, and the process must be able to exit without them.
enum DetachedThread {
    /// Carries the closure through pthread's untyped argument; ownership moves with it.
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread; `what` names it in the error.
    static func start(_ what: String, _ body: sending @escaping () -> Void) throws(AnimatedError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Glibc)
        var t = pthread_t()
        #else
        var t: pthread_t?
        #endif
        let rc = pthread_create(&t, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw .system("cannot start the \(what) thread (error \(rc))")
        }
        #if canImport(Glibc)
        pthread_detach(t)
        #else
        pthread_detach(t!)
        #endif
    }
}

/// Writes all of `bytes` at `offset` (retrying after signals). False on an error (`errno`).
func pwriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    var done = 0
    while done < bytes.count {
        let r = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
        if r < 0 { if errno == EINTR { continue }; return false }
        done += r
    }
    return true
}
