import AnimatedCore
#if canImport(Glibc)
import Glibc
#endif

/// One round of queries to the terminal before ncurses starts (kitty graphics, XTVERSION,
/// XTSMGRAPHICS, cell pixels, OSC 10/11, OSC 4 0–15, DA1 last as the sentinel), with a hard
/// total budget.
///
/// The tty is put in a raw-ish mode for the round (no echo, no line editing, no signal keys:
/// replies must never be echoed onto the screen, and a Ctrl-C typed meanwhile arrives as byte
/// 3 among the keys) and restored to exactly the saved modes afterwards. Signals that would
/// stop or kill the process are blocked for the round so the tty is never left raw; they are
/// delivered once it is restored. Bytes the user typed during the round come back in `typed`
/// for the key handler; replies never do.
enum TerminalProbe {
    struct Outcome {
        var report = TerminalReport()
        /// Key presses read during the round, in order.
        var typed: [UInt8] = []
    }

    static let defaultBudgetNanoseconds: UInt64 = 100_000_000

    /// Probes the terminal on `outputFD` (answers are read from stdin when it is a tty, else
    /// from /dev/tty). Returns an unprobed report when there is no terminal to ask, or when
    /// the process is not in the terminal's foreground (changing its modes would stop us).
    static func run(outputFD: Int32 = 1, budgetNanoseconds: UInt64 = defaultBudgetNanoseconds,
                    extraQueries: [[UInt8]] = []) -> Outcome {
        var outcome = Outcome()
        guard isatty(outputFD) != 0 else { return outcome }
        var ws = winsize()
        if ioctl(outputFD, UInt(TIOCGWINSZ), &ws) == 0 {
            outcome.report.windowColumns = Int(ws.ws_col); outcome.report.windowRows = Int(ws.ws_row)
            if ws.ws_xpixel > 0 && ws.ws_ypixel > 0 {
                outcome.report.windowPixels = PixelSize(width: Int(ws.ws_xpixel), height: Int(ws.ws_ypixel))
            }
        }
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        // The Linux console and dumb terminals misread OSC/APC strings: ask them nothing.
        if term.isEmpty || term == "dumb" || term == "linux" { return outcome }
        outcome.report.insideTmux = getenv("TMUX").map { $0.pointee != 0 } ?? false

        let inputFD: Int32
        var ownsInput = false
        if isatty(0) != 0 {
            inputFD = 0
        } else {
            inputFD = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard inputFD >= 0 else { return outcome }
            ownsInput = true
        }
        defer { if ownsInput { close(inputFD) } }
        guard tcgetpgrp(inputFD) == getpgrp() else { return outcome }

        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU] { sigaddset(&blocked, s) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }

        var saved = termios()
        guard tcgetattr(inputFD, &saved) == 0 else { return outcome }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0; cc[Int(VTIME)] = 0
        }
        guard tcsetattr(inputFD, TCSANOW, &raw) == 0 else { return outcome }
        defer { _ = tcsetattr(inputFD, TCSANOW, &saved) }

        let start = MonotonicClock.nanoseconds()
        let deadline = start + budgetNanoseconds
        let insideTmux = outcome.report.insideTmux
        // Each query is written whole once the terminal takes output, or not at all: a
        // terminal that stops reading costs the budget, never a blocked write or a cut sequence.
        for query in TerminalQueries.round(insideTmux: insideTmux, extra: extraQueries) {
            guard waitWritable(outputFD, until: deadline) else { break }
            TerminalOutput.write(outputFD, query)
        }
        outcome.report.probed = true

        var parser = TerminalReplyParser()
        let expected = TerminalQueries.expectedDA1(insideTmux: insideTmux)
        var chunk = [UInt8](repeating: 0, count: 4096)
        func absorb(_ events: [TerminalReplyParser.Event]) {
            for e in events {
                if case .keys(let k) = e { outcome.typed += k } else { outcome.report.apply(e) }
            }
        }
        while outcome.report.da1Count < expected {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { break }
            var pfd = pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0)
            let ms = Int32((deadline - now + 999_999) / 1_000_000)
            let ready = poll(&pfd, 1, ms)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { break }   // hang-up: nothing more will come
            absorb(parser.feed(chunk[0..<n]))
        }
        absorb(parser.finish())
        outcome.report.elapsedNanoseconds = MonotonicClock.nanoseconds() - start
        return outcome
    }

    private static func waitWritable(_ fd: Int32, until deadline: UInt64) -> Bool {
        while true {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let r = poll(&pfd, 1, Int32((deadline - now + 999_999) / 1_000_000))
            if r < 0 && errno == EINTR { continue }
            return r > 0 && pfd.revents & Int16(POLLOUT) != 0
        }
    }
}
