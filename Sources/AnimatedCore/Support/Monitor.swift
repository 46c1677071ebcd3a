#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `Monitor.wait` step decided.
package enum MonitorStep<Result> {
    /// Stop waiting and return this.
    case done(Result)
    /// Sleep until the next broadcast; `notify` wakes the other waiters first (the state changed).
    case sleep(notify: Bool)
}

/// State guarded by a pthread mutex, with one condition variable to sleep on (a monitor).
///
/// `Synchronization.Mutex` cannot be paired with a condition variable, and the frame buffer's
/// producer must sleep (never spin) until the display moves, so this wraps the pthread pair.
///
/// `@unchecked Sendable`: `state` is only read or written between `pthread_mutex_lock` and
/// `pthread_mutex_unlock` (every accessor below takes the lock), and `State` is `Sendable`, so
/// values handed in or out are safe to use on another thread.
package final class Monitor<State: Sendable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    package init(_ initial: State) {
        state = initial
        pthread_mutex_init(mutex, nil)
        // Timed waits measure against the monotonic clock, like the display clock.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if os(Linux)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func withLock<R: Sendable>(_ body: (inout State) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }

    /// Wakes every thread sleeping in `wait`.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }

    /// Runs `step` under the lock until it returns `.done`, sleeping between tries. With a
    /// `deadline` (monotonic ns) it gives up then and returns nil.
    package func wait<R: Sendable>(deadline: UInt64? = nil, _ step: (inout State) -> MonitorStep<R>) -> R? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            switch step(&state) {
            case .done(let result):
                return result
            case .sleep(let notify):
                if notify { pthread_cond_broadcast(condition) }
                if let deadline {
                    if MonotonicClock.nanoseconds() >= deadline { return nil }
                    var ts = timespec(tv_sec: Int(deadline / 1_000_000_000),
                                      tv_nsec: Int(deadline % 1_000_000_000))
                    pthread_cond_timedwait(condition, mutex, &ts)
                } else {
                    pthread_cond_wait(condition, mutex)
                }
            }
        }
    }
}
