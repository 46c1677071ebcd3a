#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A joinable pthread running one closure: the frame buffer's producer.
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

    init(_ body: sending @escaping () -> Void) throws(AnimatedError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Glibc)
        var t = pthread_t()
        #else
        var t: pthread_t?
        #endif
        let rc = pthread_create(&t, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw .limitExceeded("cannot start the decoding thread (error \(rc))")
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

    deinit { join() }
}
