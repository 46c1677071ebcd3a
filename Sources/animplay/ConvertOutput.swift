import AnimatedCore
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// The output of `convert` while it is written: a temporary file, placed at OUT only when
/// complete. After a failure or an interrupt it is removed, so OUT is never half-written.
///
/// How it is placed depends on what OUT is:
/// - a regular file, or none yet: the temporary file is made next to it (same file system)
///   and renamed over it, atomically. A symbolic link is followed (the file it names is
///   replaced, the link stays); a file that was there keeps its permissions (and, for root,
///   its owner); a new one gets 0666 less the umask.
/// - anything else that exists (`/dev/null`, `/dev/stdout`, a FIFO, a terminal; any path under
///   /dev or /proc): renaming would replace the device node or the link with a plain file, so
///   the temporary file is unlinked at once (`TemporaryFile`) and copied into OUT when complete.
///   The encoders patch headers in place (`EncoderSink.patch`), which a pipe cannot take.
final class TemporaryOutput {
    let fd: Int32
    private let placement: Placement
    private var done = false

    private enum Placement {
        /// Renamed from `temporary` over `target` (the resolved path).
        case rename(temporary: String, target: String)
        /// Copied into `target` as it is.
        case copy(target: String)
    }

    init(next output: String) throws(CLIFailure) {
        var st = stat(), link = stat()
        let exists = stat(output, &st) == 0
        if !exists && lstat(output, &link) == 0 {
            throw CLIFailure(file: output, message: "is a symbolic link to a missing file", code: 2)
        }
        if exists && (st.st_mode & S_IFMT) == S_IFDIR {
            throw CLIFailure(file: output, message: "is a folder: give the file to write", code: 64)
        }
        let resolved = exists ? Self.realPath(output) ?? output : output
        let special = exists && ((st.st_mode & S_IFMT) != S_IFREG || Self.isSystemPath(output) || Self.isSystemPath(resolved))
        if special {
            switch TemporaryFile.unlinked(prefix: "animplay-convert") {
            case .success(let fd): self.fd = fd
            case .failure(let e): throw CLIFailure(file: output, message: "cannot create a temporary file: \(e)", code: 2)
            }
            placement = .copy(target: output)
            return
        }
        let slash = resolved.lastIndex(of: "/")
        let dir = slash.map { String(resolved[...$0]) } ?? ""
        let base = slash.map { String(resolved[resolved.index(after: $0)...]) } ?? resolved
        var template = Array((dir + "." + base + ".animplay-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw CLIFailure(file: output, message: "cannot create a file there: \(String(cString: strerror(errno)))", code: 2)
        }
        self.fd = fd
        placement = .rename(temporary: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, target: resolved)
        if exists {
            _ = fchmod(fd, st.st_mode & 0o7777)
            if geteuid() == 0 { _ = fchown(fd, st.st_uid, st.st_gid) }
        } else {
            let mask = umask(0o022)
            umask(mask)
            _ = fchmod(fd, 0o666 & ~mask)
        }
    }

    deinit { discard() }

    /// Puts the output in place (flushed to disk and renamed over OUT, or copied into it) and
    /// returns its size in bytes.
    func commit() throws(AnimatedError) -> Int {
        guard !done else { return 0 }
        done = true
        defer { close(fd) }
        switch placement {
        case .rename(let temporary, let target):
            let ok = fsync(fd) == 0 || errno == EINVAL
            let e = errno
            guard ok else { unlink(temporary); throw .output(String(cString: strerror(e))) }
            var st = stat()
            let size = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
            guard rename(temporary, target) == 0 else {
                let e = errno
                unlink(temporary)
                throw .output(String(cString: strerror(e)))
            }
            return size
        case .copy(let target):
            return try Self.copy(from: fd, to: target)
        }
    }

    /// Removes the temporary file.
    func discard() {
        guard !done else { return }
        done = true
        close(fd)
        if case .rename(let temporary, _) = placement { unlink(temporary) }
    }

    /// Everything written to `source` (from its start) written into `target`, opened as it is
    /// (a regular file reached through /dev or /proc is emptied first).
    private static func copy(from source: Int32, to target: String) throws(AnimatedError) -> Int {
        let out = open(target, O_WRONLY | O_CLOEXEC)
        guard out >= 0 else { throw .output(String(cString: strerror(errno))) }
        defer { close(out) }
        var st = stat()
        if fstat(out, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG { _ = ftruncate(out, 0) }
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, off_t(total)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .output(String(cString: strerror(errno))) }
            if n == 0 { return total }
            let e = chunk.withUnsafeBytes { writeAll(out, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            guard e == 0 else { throw .output(String(cString: strerror(e))) }
            total += n
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// Device nodes and the kernel's views of open files live here, not files to replace.
    private static func isSystemPath(_ path: String) -> Bool {
        path.hasPrefix("/dev/") || path.hasPrefix("/proc/")
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
        StandardError.control("\r[\(bar)] \(done)/\(total) frames")
        drawn = true
    }

    func clear() {
        guard enabled, drawn else { return }
        StandardError.control("\r\u{1B}[K")
        drawn = false
    }
}
