import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The lower half's bands of a first frame written in halves (`SixelBandWriter`), claimed one
/// at a time from both ends: from the top by the lower half's thread once it has mapped them
/// all, from the bottom by the upper half's thread once its own bands are written. The lower
/// half of a frame is often the harder one (the benchmark video's took 8.4 ms after the cut
/// against 5.3 for the upper: more table misses, more colours a band), and a core idled
/// meanwhile.
///
/// The upper thread only waits for the mapping when the lower thread has started: when no
/// thread could be started, `SideThread` runs the lower half after the upper one, and the
/// upper one then leaves it every band.
///
/// @unchecked Sendable: the claims sit behind a mutex, and `ready` is a POSIX semaphore (its
/// post happens before the wait that sees it, so the indices it vouches for are visible).
final class SixelLowerBands: @unchecked Sendable {
    /// Rows of the first band and of the image.
    let top: Int, height: Int
    private struct Claims {
        var first: Int, end: Int      // bands first..<end are unclaimed
        var started = false
    }
    private let claims: Mutex<Claims>
    private let ready = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init(top: Int, height: Int) {
        self.top = top; self.height = height
        claims = Mutex(Claims(first: 0, end: (height - top + 5) / 6))
        sem_init(ready, 0, 0)
    }

    deinit {
        sem_destroy(ready)
        ready.deallocate()
    }

    /// Rows of band `b`.
    func rows(_ b: Int) -> Range<Int> {
        let y0 = top + 6 * b
        return y0..<min(y0 + 6, height)
    }

    /// The lower thread has begun (before it maps).
    func start() { claims.withLock { $0.started = true } }

    /// Every lower row is mapped: their bands may be written by either thread.
    func mapped() { sem_post(ready) }

    /// The next band from the top, or nil when none is left.
    func claimFirst() -> Int? {
        claims.withLock { c in
            guard c.first < c.end else { return nil }
            defer { c.first += 1 }
            return c.first
        }
    }

    /// For the upper thread: whether it may take bands from the bottom (`claimLast`), after
    /// waiting for the lower rows' mapping. False, at once, when the lower thread has not
    /// started: it may only run after this one.
    func waitForMappingIfStarted() -> Bool {
        guard claims.withLock({ $0.started }) else { return false }
        while sem_wait(ready) != 0 && errno == EINTR {}
        return true
    }

    /// The next band from the bottom, or nil when none is left.
    func claimLast() -> Int? {
        claims.withLock { c in
            guard c.first < c.end else { return nil }
            c.end -= 1
            return c.end
        }
    }
}
