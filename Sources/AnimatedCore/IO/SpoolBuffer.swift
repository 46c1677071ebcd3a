#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes that arrive over time (a pipe, a download), kept so that decoders can read them at any
/// offset while more are appended: in memory up to `memoryCap`, then in an unlinked temporary
/// file (so memory stays bounded whatever the input's size, and nothing is left on disk).
///
/// One writer appends and finally calls `finish`; any number of readers read what has arrived.
/// Bytes once appended never change, so a reader may use any prefix it has seen.
///
/// Sendable: all state lives in a `Monitor`; the temporary file's descriptor is only used for
/// `pwrite`/`pread` under its lock.
public final class SpoolBuffer: Sendable {
    /// What has arrived so far.
    public struct Progress: Sendable, Equatable {
        /// Bytes received.
        public var count: Int
        /// The writer is done (no more bytes will come).
        public var finished: Bool
        /// Why the input ended early (connection dropped, read error), if it did.
        public var failure: String?
        /// The failure means the bytes must not be shown (a size cap), not just that they stop.
        public var fatal = false
        /// `cancel()` ended it (then `failure` is `SpoolBuffer.cancelledMessage` and `fatal`).
        public var cancelled = false
        /// Total size announced in advance (Content-Length), if any.
        public var expected: Int?
        /// Monotonic ns when the first byte arrived, and when the input finished.
        public var firstByteAt: UInt64?
        /// Monotonic ns when the spool was made.
        public var startedAt: UInt64
        /// Monotonic ns when the input finished (nil while it comes).
        public var finishedAt: UInt64?
    }

    struct State: Sendable {
        var progress: Progress
        var chunks: [[UInt8]] = []      // memory storage while the spool fits under the cap
        var fd: Int32 = -1              // the temporary file once it does not
        var observers: [@Sendable () -> Void] = []
    }

    /// Bytes kept in memory before spilling to a temporary file.
    public let memoryCap: Int
    /// A name for messages (the path, "-", the URL).
    public let name: String
    private let monitor: Monitor<State>
    private static let chunkSize = 64 << 10

    /// An empty spool named `name` that keeps `memoryCap` bytes in memory before spilling to a temporary file.
    public init(name: String, memoryCap: Int = 4 << 20) {
        self.name = name
        self.memoryCap = memoryCap
        monitor = Monitor(State(progress: Progress(count: 0, finished: false, failure: nil,
                                                   expected: nil, startedAt: MonotonicClock.nanoseconds())))
    }

    deinit {
        let fd = monitor.withLock { $0.fd }
        if fd >= 0 { close(fd) }
    }

    // MARK: writer

    /// Appends bytes. Throws (and finishes the spool with that failure) if the temporary file
    /// cannot be written.
    public func append(_ bytes: UnsafeRawBufferPointer) throws(AnimatedError) {
        guard bytes.count > 0 else { return }
        let failure = monitor.withLock { s -> String? in
            if s.progress.finished { return nil }
            if s.fd < 0 && s.progress.count + bytes.count > memoryCap {
                if let e = Self.spill(&s) { Self.end(&s, failure: e); return e }
            }
            if s.fd >= 0 {
                guard pwriteAll(s.fd, bytes, at: s.progress.count) else {
                    let e = "cannot write the temporary spool file: \(String(cString: strerror(errno)))"
                    Self.end(&s, failure: e)
                    return e
                }
            } else {
                var rest = UnsafeRawBufferPointer(rebasing: bytes[...])
                while !rest.isEmpty {
                    if s.chunks.isEmpty || s.chunks[s.chunks.count - 1].count == Self.chunkSize {
                        s.chunks.append([])
                        s.chunks[s.chunks.count - 1].reserveCapacity(Self.chunkSize)
                    }
                    let room = Self.chunkSize - s.chunks[s.chunks.count - 1].count
                    let n = min(room, rest.count)
                    s.chunks[s.chunks.count - 1].append(contentsOf: rest[..<n])
                    rest = UnsafeRawBufferPointer(rebasing: rest[n...])
                }
            }
            if s.progress.firstByteAt == nil { s.progress.firstByteAt = MonotonicClock.nanoseconds() }
            s.progress.count += bytes.count
            return nil
        }
        notify()
        if let failure { throw .unreadable(failure) }
    }

    /// Convenience for tests.
    public func append(_ bytes: [UInt8]) throws(AnimatedError) {
        var failure: AnimatedError?
        bytes.withUnsafeBytes { b in
            do { try append(b) } catch { failure = error as? AnimatedError }
        }
        if let failure { throw failure }
    }

    /// The failure of a cancelled spool.
    public static let cancelledMessage = "cancelled"

    /// Ends the input now, as cancelled (from any thread; does nothing once finished): readers
    /// waiting for bytes wake up and fail with `cancelledMessage`, later appends are dropped,
    /// and a writer that checks `progress.cancelled` (a download does) stops fetching.
    public func cancel() {
        monitor.withLock { s in
            guard !s.progress.finished else { return }
            Self.end(&s, failure: Self.cancelledMessage, fatal: true)
            s.progress.cancelled = true
        }
        notify()
    }

    /// Records the announced total size (for progress).
    public func setExpected(_ n: Int?) {
        monitor.withLock { $0.progress.expected = n }
    }

    /// No more bytes will come; `failure` says why the input ended early, if it did.
    public func finish(failure: String? = nil, fatal: Bool = false) {
        monitor.withLock { Self.end(&$0, failure: failure, fatal: fatal) }
        notify()
    }

    private static func end(_ s: inout State, failure: String?, fatal: Bool = false) {
        guard !s.progress.finished else { return }
        s.progress.finished = true
        s.progress.failure = failure
        s.progress.fatal = failure != nil && fatal
        s.progress.finishedAt = MonotonicClock.nanoseconds()
    }

    /// Moves the memory chunks into a new unlinked temporary file. Returns an error message.
    private static func spill(_ s: inout State) -> String? {
        let fd: Int32
        switch TemporaryFile.unlinked(prefix: "animplay-spool") {
        case .success(let made): fd = made
        case .failure(let e): return "cannot create a temporary spool file in \(TemporaryFile.folder): \(e)"
        }
        var offset = 0
        for chunk in s.chunks {
            let ok = chunk.withUnsafeBytes { pwriteAll(fd, $0, at: offset) }
            guard ok else {
                let e = String(cString: strerror(errno)); close(fd)
                return "cannot write the temporary spool file: \(e)"
            }
            offset += chunk.count
        }
        s.chunks = []
        s.fd = fd
        return nil
    }

    // MARK: readers

    /// How far the input has come (any thread).
    public var progress: Progress { monitor.withLock { $0.progress } }

    /// True once the bytes live in the temporary file (tests).
    public var spilledToDisk: Bool { monitor.withLock { $0.fd >= 0 } }

    /// Copies up to `buffer.count` bytes at `offset` among those that have arrived; returns how
    /// many (0 at or past the current end).
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(AnimatedError) -> Int {
        let result = monitor.withLock { s -> Result<Int, AnimatedError> in
            guard offset >= 0, offset < s.progress.count, buffer.count > 0 else { return .success(0) }
            let n = min(buffer.count, s.progress.count - offset)
            if s.fd >= 0 {
                var done = 0
                while done < n {
                    let r = pread(s.fd, buffer.baseAddress! + done, n - done, off_t(offset + done))
                    if r < 0 {
                        if errno == EINTR { continue }
                        return .failure(.unreadable(String(cString: strerror(errno))))
                    }
                    if r == 0 { break }
                    done += r
                }
                return .success(done)
            }
            var done = 0
            while done < n {
                let at = offset + done
                let chunk = at / Self.chunkSize, within = at % Self.chunkSize
                let m = min(n - done, Self.chunkSize - within)
                s.chunks[chunk].withUnsafeBytes { c in
                    (buffer.baseAddress! + done).copyMemory(from: c.baseAddress! + within, byteCount: m)
                }
                done += m
            }
            return .success(done)
        }
        return try result.get()
    }

    /// Waits until more than `count` bytes have arrived or the spool finished (or `deadline`,
    /// monotonic ns, passed: then nil).
    @discardableResult
    public func waitForMore(than count: Int, deadline: UInt64? = nil) -> Progress? {
        monitor.wait(deadline: deadline) { s -> MonitorStep<Progress> in
            (s.progress.count > count || s.progress.finished) ? .done(s.progress) : .sleep(notify: false)
        }
    }

    /// Waits for the end of the input.
    @discardableResult
    public func waitUntilFinished() -> Progress {
        monitor.wait { s -> MonitorStep<Progress> in s.progress.finished ? .done(s.progress) : .sleep(notify: false) }!
    }

    /// Calls `observer` (on the writer's thread) after every append and at the end.
    public func observe(_ observer: @escaping @Sendable () -> Void) {
        monitor.withLock { $0.observers.append(observer) }
    }

    private func notify() {
        monitor.broadcast()
        for o in monitor.withLock({ $0.observers }) { o() }
    }
}
