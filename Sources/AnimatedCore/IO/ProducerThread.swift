import CThreadStart
#if canImport(Glibc)
import Glibc
/// What `pthread_create` stores.
typealias ThreadHandle = pthread_t
#elseif canImport(Darwin)
import Darwin
typealias ThreadHandle = pthread_t?
#endif

/// A pthread running one closure: the frame buffer's producer (joined), or a spool's reader
/// (detached, see `DetachedThread`). It starts on another core than its creator's when there
/// is one (`animplay_thread_create_elsewhere`: here, a new thread otherwise waited up to 4 ms
/// on its creator's core while the creator went on working).
///
/// The closure is `sending`: whatever it captures (the decoder, the compositor) belongs to the
/// new thread alone, which is what lets non-Sendable decoders run off the display thread.
final class ProducerThread {
    /// Carries the closure through pthread's untyped argument; ownership moves with it.
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var thread: pthread_t
    private var joined = false

    /// Creates a thread running `entry(context)` and stores it in the first argument; returns 0 or
    /// an errno value, as `pthread_create` does. Tests substitute one that fails.
    typealias Spawn = (UnsafeMutablePointer<ThreadHandle>, @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
                       UnsafeMutableRawPointer) -> Int32

    /// Starts `body` on a new thread. A thread the system refuses (EAGAIN: thread or memory
    /// limits) is an `AnimatedError.Kind.system` error, not a fault of the image.
    /// `what` names the thread in the error.
    init(spawn: Spawn = { animplay_thread_create_elsewhere($0, $1, $2) }, what: String = "decoding",
         _ body: sending @escaping () -> Void) throws(AnimatedError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Glibc)
        var t = pthread_t()
        #else
        var t: pthread_t?
        #endif
        let rc = spawn(&t, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw .system("cannot start the \(what) thread: \(String(cString: strerror(rc)))")
        }
        #if canImport(Glibc)
        thread = t
        #else
        thread = t!
        #endif
    }

    /// Waits for the closure to return. Idempotent.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    /// Lets the thread run on unjoined: the process may exit while it still blocks.
    func detach() {
        guard !joined else { return }
        joined = true
        pthread_detach(thread)
    }

    deinit { join() }
}
