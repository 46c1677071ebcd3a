import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// Signals delivered to the main loop through a self-pipe (see `animplay_catch_signal`): the
/// handler writes the signal number, the loop polls `readFD` and drains it. Nothing but that
/// write happens in the handler, so ncurses is never re-entered.
///
/// Installed before `newterm`: ncurses then leaves SIGINT, SIGTERM, SIGWINCH and SIGTSTP to us
/// (it only installs its own handlers where the disposition is still the default). SIGTSTP
/// (Ctrl-Z) is caught so that the loop can hold the clock before the process stops.
final class SignalPipe {
    let readFD: Int32
    private let writeFD: Int32
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGCONT, SIGTSTP]

    init() throws(CLIFailure) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw CLIFailure(message: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        readFD = fds[0]; writeFD = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)   // a full pipe never blocks the handler
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        for s in Self.handled { _ = animplay_catch_signal(s, writeFD) }
    }

    /// Signals received since the last call, in order, each at most once.
    func drain() -> [Int32] {
        var got: [Int32] = []
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf in
            while true {
                let n = read(readFD, buf.baseAddress, 64)
                if n <= 0 { break }
                for i in 0..<n where !got.contains(Int32(buf[i])) { got.append(Int32(buf[i])) }
            }
        }
        return got
    }

    /// Restores default dispositions (after the terminal has been restored).
    func uninstall() {
        for s in Self.handled { _ = animplay_default_signal(s) }
        close(readFD); close(writeFD)
    }
}
