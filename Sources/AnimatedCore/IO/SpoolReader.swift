#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies a pipe, FIFO or any other stream into a `SpoolBuffer` on a thread of its own, so that
/// decoders can start on what has arrived while the rest is still coming.
package enum SpoolReader {
    /// Opens `path` when it is not a regular file that `ByteSource(path:)` can read directly: a
    /// FIFO (process substitution, `mkfifo`), a character device, or a socket. Returns nil for
    /// regular files and directories. `-` means standard input.
    ///
    /// A FIFO is opened without blocking (opening one that has no writer would wait forever);
    /// the reader then waits at most `firstDataTimeoutMs` for a writer's first byte or EOF.
    /// At most `maxBytes` are read (an endless stream would otherwise fill the temporary
    /// file's disk): the spool then ends with a failure that says so, followed by `limitHint`.
    package static func openStream(path: String, firstDataTimeoutMs: Int32 = 5_000, maxBytes: Int = defaultMaxBytes,
                                   limitHint: String = "") throws(AnimatedError) -> SpoolBuffer? {
        let limit = Limit(bytes: maxBytes, hint: limitHint)
        if path == "-" {
            let fd = dup(0)
            guard fd >= 0 else { throw .posix(.unreadable, errno, "standard input: ") }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let spool = SpoolBuffer(name: "-")
            try start(fd: fd, into: spool, firstDataTimeoutMs: -1, limit: limit)
            return spool
        }
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }     // ByteSource reports the error
        let type = st.st_mode & S_IFMT
        guard type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .posix(.unreadable, errno) }
        let spool = SpoolBuffer(name: path)
        try start(fd: fd, into: spool, firstDataTimeoutMs: type == S_IFIFO ? firstDataTimeoutMs : -1, limit: limit)
        return spool
    }

    /// What a stream may bring by default: 1 GiB.
    package static let defaultMaxBytes = 1 << 30

    /// The most bytes read from a stream, and what the failure adds after saying it (an option).
    package struct Limit: Sendable {
        let bytes: Int
        let hint: String

        package init(bytes: Int, hint: String) { self.bytes = bytes; self.hint = hint }

        var failure: String {
            "more than \((bytes + (1 << 20) - 1) >> 20) MB" + (hint.isEmpty ? "" : ", the limit: \(hint)")
        }
    }

    /// Starts a detached thread that reads `fd` (which it then owns and closes) into `spool`
    /// until end of file, then finishes the spool. `firstDataTimeoutMs` ≥ 0 bounds the wait for
    /// the first byte (a FIFO nobody writes to); -1 waits as long as it takes.
    package static func start(fd: Int32, into spool: SpoolBuffer, firstDataTimeoutMs: Int32,
                              limit: Limit = Limit(bytes: defaultMaxBytes, hint: "")) throws(AnimatedError) {
        let job = Job(fd: fd, spool: spool, timeout: firstDataTimeoutMs, limit: limit)
        do {
            try DetachedThread.start("input") { job.run() }
        } catch {
            close(fd)
            throw error
        }
    }

    /// The reading thread's work. Owned by that thread alone.
    private final class Job {
        let fd: Int32
        let spool: SpoolBuffer
        let timeout: Int32
        let limit: Limit
        init(fd: Int32, spool: SpoolBuffer, timeout: Int32, limit: Limit) {
            self.fd = fd; self.spool = spool; self.timeout = timeout; self.limit = limit
        }

        func run() {
            defer { close(fd) }
            let size = 64 << 10
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            defer { buffer.deallocate() }
            var seenData = false
            var total = 0
            while true {
                // poll first: a non-blocking FIFO reads as EOF until a writer connects.
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let wait = seenData ? -1 : timeout
                let ready = poll(&p, 1, wait)
                if ready < 0 {
                    if errno == EINTR { continue }
                    spool.finish(failure: "read error: \(String(cString: strerror(errno)))"); return
                }
                if ready == 0 {
                    spool.finish(failure: "nothing arrived within \(timeout / 1000) s (no writer?)"); return
                }
                let n = read(fd, buffer.baseAddress!, size)
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    spool.finish(failure: "read error: \(String(cString: strerror(errno)))"); return
                }
                if n == 0 { spool.finish(); return }
                seenData = true
                let kept = min(n, limit.bytes - total)
                do { try spool.append(UnsafeRawBufferPointer(rebasing: buffer[..<kept])) } catch { return }
                total += kept
                // What arrived stays usable (a stream that ends early plays what it brought).
                if kept < n { spool.finish(failure: limit.failure); return }
            }
        }
    }
}
