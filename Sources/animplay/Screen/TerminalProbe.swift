import AnimatedCore
import AnimatedNet
import AnimatedTerminal
#if canImport(Glibc)
import Glibc
#endif

/// One round of queries to the terminal before ncurses starts (kitty graphics, XTVERSION,
/// XTSMGRAPHICS, cell pixels, OSC 10/11, OSC 4 0–15, DA1 last as the sentinel), with a hard
/// total budget.
///
/// The tty is put in a raw-ish mode for the round (no echo, no line editing, no signal keys:
/// replies must never be echoed onto the screen) and restored to exactly the saved modes
/// afterwards. Signals that would stop or kill the process are blocked for the round so the
/// tty is never left raw; they are delivered once it is restored, and so are the signals of
/// the signal keys typed meanwhile (Ctrl-C, Ctrl-\, Ctrl-Z). Other bytes the user typed
/// during the round come back in `typed` for the key handler; replies never do.
enum TerminalProbe {
    struct Outcome {
        var report = TerminalReport()
        /// Key presses read during the round, in order.
        var typed: [UInt8] = []
        /// Replies still on their way when the budget ran out (`absorbLate` before exiting).
        var late: LateReplies?
    }

    /// A terminal slower than the budget (ssh to the other side of the world) answers after the
    /// round. During playback the key reader drops those replies; but a still, a short play or
    /// `probe` may end first, and replies arriving after exit would be echoed by the tty or read
    /// by the shell as typed text. So before exiting, `absorbLate` waits for the outstanding DA1
    /// sentinels (DA1 is asked last, so its reply comes last) until `deadline`.
    struct LateReplies {
        /// DA1 replies not yet seen (more than one through tmux).
        var sentinels: Int
        /// Nanoseconds (MonotonicClock): 1.5 s after the queries, or the budget if longer.
        /// A terminal that never answers (rare: DA1 is the one query every terminal answers)
        /// costs a short run at most this much.
        var deadline: UInt64
    }

    static let lateWindowNanoseconds: UInt64 = 1_500_000_000

    static let defaultBudgetNanoseconds: UInt64 = 100_000_000

    /// The budget: ANIMPLAY_PROBE_MS (1–10000, for slow links such as ssh across the world;
    /// the round still ends as soon as the terminal has answered), else 100 ms.
    static var budgetNanoseconds: UInt64 {
        if let v = getenv("ANIMPLAY_PROBE_MS").flatMap({ Int(String(cString: $0)) }), (1...10_000).contains(v) {
            return UInt64(v) * 1_000_000
        }
        return defaultBudgetNanoseconds
    }

    /// Probes the terminal on `outputFD` (answers are read from stdin when it is a tty, else
    /// from /dev/tty). Returns an unprobed report when there is no terminal to ask, or when
    /// the process is not in the terminal's foreground (changing its modes would stop us).
    static func run(outputFD: Int32 = 1, budgetNanoseconds: UInt64 = budgetNanoseconds,
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
        // GNU screen (STY set) shows APC strings in its status line and has no graphics to ask about.
        let insideScreen = !outcome.report.insideTmux && getenv("STY") != nil

        withQuietInput { inputFD, saved in
            round(&outcome, inputFD: inputFD, saved: saved, outputFD: outputFD, budgetNanoseconds: budgetNanoseconds,
                  insideScreen: insideScreen, extraQueries: extraQueries)
        }
        return outcome
    }

    /// Runs `body` with the terminal's input (stdin when it is a tty, else /dev/tty) in a quiet
    /// mode: no echo, no line editing, no signal keys, reads that never block. Signals that would
    /// stop or kill the process are blocked meanwhile so that the tty is never left that way;
    /// the exact saved modes are restored afterwards. Nothing runs when there is no terminal or
    /// the process is not in its foreground (changing its modes would stop us).
    private static func withQuietInput(_ body: (Int32, termios) -> Void) {
        let inputFD: Int32
        var ownsInput = false
        if isatty(0) != 0 {
            inputFD = 0
        } else {
            inputFD = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard inputFD >= 0 else { return }
            ownsInput = true
        }
        defer { if ownsInput { close(inputFD) } }
        guard tcgetpgrp(inputFD) == getpgrp() else { return }

        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU] { sigaddset(&blocked, s) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }

        var saved = termios()
        guard tcgetattr(inputFD, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0; cc[Int(VTIME)] = 0
        }
        let rescue = TerminalRescue.enter(tty: inputFD, modes: saved, undo: [])
        defer { TerminalRescue.leave(rescue) }
        guard tcsetattr(inputFD, TCSANOW, &raw) == 0 else { return }
        defer { _ = tcsetattr(inputFD, TCSANOW, &saved) }
        body(inputFD, saved)
    }

    /// Waits (quietly, see `withQuietInput`) for the late replies of `late` that the key reader
    /// has not seen (`seenSentinels` DA1 replies) until its deadline, and drops them. Keys typed
    /// meanwhile are dropped too: the program is ending.
    static func absorbLate(_ late: LateReplies?, seenSentinels: Int = 0) {
        guard let late, late.sentinels > seenSentinels, MonotonicClock.nanoseconds() < late.deadline else { return }
        withQuietInput { inputFD, _ in drain(inputFD, late, missing: late.sentinels - seenSentinels) }
    }

    /// Asks DA1 once more and drops everything until its answer (at most `budgetNanoseconds`):
    /// the terminal handles its input in order, so once it answers it has read every command
    /// written before (kitty: every shared-memory object it will ever read).
    static func settle(outputFD: Int32 = 1, budgetNanoseconds: UInt64 = 500_000_000) {
        guard isatty(outputFD) != 0 else { return }
        withQuietInput { inputFD, _ in
            guard waitWritable(outputFD, until: MonotonicClock.nanoseconds() + budgetNanoseconds) else { return }
            TerminalOutput.write(outputFD, TerminalQueries.primaryDeviceAttributes)
            drain(inputFD, LateReplies(sentinels: 1, deadline: MonotonicClock.nanoseconds() + budgetNanoseconds), missing: 1)
        }
    }

    /// After the last sentinel, what else arrives within this quiet time is dropped too
    /// (a reply the terminal sends after its DA1, a second answer through tmux).
    static let trailingQuietNanoseconds: UInt64 = 50_000_000

    /// Reads and drops input until `missing` DA1 sentinels have come (or `late.deadline`),
    /// then until the input has been quiet for `trailingQuietNanoseconds` (bounded by the
    /// deadline plus that time).
    private static func drain(_ inputFD: Int32, _ late: LateReplies, missing: Int) {
        var parser = TerminalReplyParser()
        var missing = missing
        var chunk = [UInt8](repeating: 0, count: 4096)
        var deadline = late.deadline
        var trailing = false
        while true {
            let now = MonotonicClock.nanoseconds()
            if missing <= 0 && !trailing {
                trailing = true
                deadline = now + trailingQuietNanoseconds
            }
            guard now < deadline else { break }
            var pfd = pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32((deadline - now + 999_999) / 1_000_000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { break }
            for e in parser.feed(chunk[0..<n]) {
                if case .primaryDeviceAttributes = e { missing -= 1 }
            }
            if trailing { deadline = min(MonotonicClock.nanoseconds() + trailingQuietNanoseconds, late.deadline + 4 * trailingQuietNanoseconds) }
        }
    }

    /// The round itself, with the input quiet: queries out, replies in until the DA1 sentinel
    /// (or the budget), keys typed meanwhile kept.
    private static func round(_ outcome: inout Outcome, inputFD: Int32, saved: termios, outputFD: Int32,
                              budgetNanoseconds: UInt64, insideScreen: Bool, extraQueries: [[UInt8]]) {
        let start = MonotonicClock.nanoseconds()
        let deadline = start + budgetNanoseconds
        let insideTmux = outcome.report.insideTmux
        // Each query is written whole once the terminal takes output, or not at all: a
        // terminal that stops reading costs the budget, never a blocked write or a cut sequence.
        let queries = TerminalQueries.round(insideTmux: insideTmux, graphicsQueries: !insideScreen,
                                            extra: insideScreen ? [] : extraQueries)
        var wroteAll = true
        for query in queries {
            guard waitWritable(outputFD, until: deadline) else { wroteAll = false; break }
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
        let keys = outcome.typed
        outcome.typed = raiseSignalKeys(keys, saved)
        // DA1 goes last: when it was not written, no sentinel is on its way.
        if wroteAll && outcome.report.da1Count < expected {
            outcome.late = LateReplies(sentinels: expected - outcome.report.da1Count,
                                       deadline: start + max(budgetNanoseconds, lateWindowNanoseconds))
        }
        // A signal key typed during the round (raised, delivered once the modes are back)
        // may end the process at once: the late replies are drained first, still quietly.
        if let late = outcome.late, outcome.typed.count != keys.count {
            drain(inputFD, late, missing: late.sentinels)
            outcome.late = nil
        }
    }

    /// Ctrl-C, Ctrl-\ and Ctrl-Z typed during the round (signal keys were off) become the
    /// signals the tty would have sent. Raised while blocked, they are delivered once the
    /// modes are restored and the mask lifted. Returns the other keys.
    private static func raiseSignalKeys(_ typed: [UInt8], _ modes: termios) -> [UInt8] {
        var cc = modes.c_cc
        let keys: [(UInt8, Int32)] = withUnsafeBytes(of: &cc) { c in
            [(c[Int(VINTR)], SIGINT), (c[Int(VQUIT)], SIGQUIT), (c[Int(VSUSP)], SIGTSTP)]
        }.filter { $0.0 != 0 }   // 0: _POSIX_VDISABLE
        var rest: [UInt8] = []
        for b in typed {
            if let k = keys.first(where: { $0.0 == b }) { raise(k.1) } else { rest.append(b) }
        }
        return rest
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
