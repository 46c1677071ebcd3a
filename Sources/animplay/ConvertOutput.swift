import AnimatedCore
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// The output of `convert` while it is written: a temporary file next to OUT (same file
/// system, so the final rename is atomic), renamed over OUT only when complete. After a failure
/// or an interrupt it is removed, so OUT is never half-written.
final class TemporaryOutput {
    let fd: Int32
    let path: String
    private let target: String
    private var done = false

    init(next target: String) throws(CLIFailure) {
        self.target = target
        let slash = target.lastIndex(of: "/")
        let dir = slash.map { String(target[...$0]) } ?? ""
        let base = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var template = Array((dir + "." + base + ".animplay-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw CLIFailure(file: target, message: "cannot create a file there: \(String(cString: strerror(errno)))", code: 2)
        }
        self.fd = fd
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        _ = fchmod(fd, 0o644)
    }

    deinit { discard() }

    /// Flushes to disk and renames over the target.
    func commit() throws(AnimatedError) {
        guard !done else { return }
        done = true
        let ok = fsync(fd) == 0 || errno == EINVAL
        let e = errno
        close(fd)
        guard ok else { unlink(path); throw .output(String(cString: strerror(e))) }
        guard rename(path, target) == 0 else {
            let e = errno
            unlink(path)
            throw .output(String(cString: strerror(e)))
        }
    }

    /// Removes the temporary file.
    func discard() {
        guard !done else { return }
        done = true
        close(fd)
        unlink(path)
    }
}

/// SIGINT, SIGTERM and SIGHUP during `convert`: noted (the handler writes to a pipe, see
/// `animplay_catch_signal`) and acted on between frames, so the temporary file is removed
/// and nothing is left half-written. Ctrl-Z keeps its default (the process just stops).
final class InterruptWatch {
    private let readFD: Int32, writeFD: Int32
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        readFD = fds[0]; writeFD = fds[1]
        for fd in fds where fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        if writeFD >= 0 { for s in Self.signals { _ = animplay_catch_signal(s, writeFD) } }
    }

    /// True once one of the signals has arrived.
    var received: Bool {
        guard readFD >= 0 else { return false }
        var b: UInt8 = 0
        return read(readFD, &b, 1) == 1
    }

    func uninstall() {
        for s in Self.signals { _ = animplay_default_signal(s) }
        if readFD >= 0 { close(readFD); close(writeFD) }
    }
}

/// A one-line progress bar on standard error (a terminal only), redrawn at most 10 times a second.
final class ProgressBar {
    private let enabled: Bool
    private var lastDraw = 0.0
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ done: Int, of total: Int) {
        guard enabled else { return }
        let now = MonotonicClock.seconds()
        guard done == total || now - lastDraw >= 0.1 else { return }
        lastDraw = now
        let width = 30
        let filled = total > 0 ? done * width / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        StandardError.write("\r[\(bar)] \(done)/\(total) frames")
        drawn = true
    }

    func clear() {
        guard enabled, drawn else { return }
        StandardError.write("\r\u{1B}[K")
        drawn = false
    }
}
