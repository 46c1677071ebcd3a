import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import CNcurses
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Feedback while a URL's first frame is awaited: after 100 ms a line says that animplay is
/// connecting to the host, then how many bytes came at what rate; keys are read from the
/// start with echo off (nothing typed lands on screen), `q`, a lone Esc or Ctrl-C quit at
/// once, other keys are kept for the player. Before the screen is set up (the first file, a
/// grid's files) the line is at the cursor; while a playlist's screen is up (a later file),
/// on the screen's bottom row, where the status line goes.
///
/// The waits it accompanies (libcurl's headers, the first frame's bytes) block the main
/// thread, so the line has its own thread. Quitting from there cannot unwind the main thread:
/// it restores the terminal and ends the process with `_exit` — nothing is lost, since the
/// cache only ever stores a complete download and the spool's file is already unlinked.
/// On the screen it first leaves curses' screen with the bytes and tty modes curses itself
/// would restore (`NcursesScreen.leaveBytes`, `.shellModes`).
final class ConnectingLine: Sendable {
    /// Where the line goes.
    enum Place: Sendable {
        /// At the cursor, in the normal screen.
        case cursor
        /// On row `row` (0-based) of the screen curses holds, `columns` wide; `leave` and
        /// `shellModes` restore the terminal if the user quits.
        case screen(row: Int, columns: Int, leave: [UInt8], shellModes: termios)
    }
    private let place: Place
    private struct State: Sendable {
        var spool: SpoolBuffer?
        var typed: [UInt8] = []
    }
    private let state = Mutex(State())
    private let host: String
    private let tty: Int32
    private let saved: termios
    private let rescue: TerminalRescue.Layer
    private let wake: (read: Int32, write: Int32)
    private let startedAt = MonotonicClock.nanoseconds()
    nonisolated(unsafe) private var thread = pthread_t()

    /// Starts when both the keyboard (/dev/tty) and stdout are a terminal; nil otherwise.
    init?(url: String, place: Place = .cursor) {
        guard isatty(1) != 0 else { return nil }
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        var modes = termios()
        guard tcgetattr(fd, &modes) == 0 else { close(fd); return nil }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { close(fd); return nil }
        host = Self.host(of: url)
        self.place = place
        tty = fd; saved = modes; wake = (fds[0], fds[1])
        var raw = modes
        // No echo, no line editing, and Ctrl-C as a byte: quitting must restore these modes.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        raw.c_cc.6 = 0   // VMIN
        raw.c_cc.5 = 0   // VTIME
        rescue = TerminalRescue.enter(tty: fd, modes: modes, undo: [])
        tcsetattr(fd, TCSANOW, &raw)
        let me = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { raw in
            let line = Unmanaged<ConnectingLine>.fromOpaque(raw!).takeRetainedValue()
            line.run()
            return nil
        }, me)
    }

    /// The spool of the download, once there is one (bytes and rate for the line).
    func watch(_ spool: SpoolBuffer) { state.withLock { $0.spool = spool } }

    /// Ends the line (erased) and gives back the terminal's modes and the keys typed meanwhile.
    func stop() -> [UInt8] {
        var one: UInt8 = 1
        _ = Glibc.write(wake.write, &one, 1)
        pthread_join(thread, nil)
        var modes = saved
        tcsetattr(tty, TCSANOW, &modes)
        TerminalRescue.leave(rescue)
        close(tty); close(wake.read); close(wake.write)
        return state.withLock { $0.typed }
    }

    private func run() {
        var shown = false
        var lastDraw: UInt64 = 0
        while true {
            var fds = [pollfd(fd: tty, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, 50)
            if fds[1].revents != 0 {
                if shown { erase() }
                return
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let n = read(tty, &buffer, buffer.count)
                if n > 0 { keys(Array(buffer[0..<n]), shown: shown) }
            }
            let now = MonotonicClock.nanoseconds()
            if now - startedAt >= 100_000_000 && now - lastDraw >= 200_000_000 {
                draw(now)
                shown = true
                lastDraw = now
            }
        }
    }

    /// q, a lone Esc or Ctrl-C end the process here; anything else is kept for the player.
    private func keys(_ bytes: [UInt8], shown: Bool) {
        let quit = bytes.contains(0x71) || bytes.contains(0x51) || bytes == [0x1B]
        if quit || bytes.contains(0x03) {
            if case .screen(_, _, let leave, let shellModes) = place {
                if shown { erase() }
                TerminalOutput.write(1, leave)
                var modes = shellModes
                tcsetattr(tty, TCSANOW, &modes)
            } else {
                var modes = saved
                tcsetattr(tty, TCSANOW, &modes)
                if shown { erase() }
            }
            if quit && !bytes.contains(0x03) { _exit(0) }
            TerminalOutput.write(2, "animplay: interrupted by SIGINT\n")
            _exit(1)
        }
        state.withLock { $0.typed += bytes }
    }

    private func draw(_ now: UInt64) {
        switch place {
        case .cursor:
            var rows: Int32 = 24, columns: Int32 = 80
            _ = animplay_window_size(1, &rows, &columns)
            TerminalOutput.write(1, "\r\u{1B}[K" + text(now, columns: Int(columns)))
        case .screen(let row, let columns, _, _):
            // Reverse video like the status line; the cursor goes back where curses left it.
            TerminalOutput.write(1, "\u{1B}7\u{1B}[\(row + 1);1H\u{1B}[7m\(text(now, columns: columns))\u{1B}[K\u{1B}[m\u{1B}8")
        }
    }

    private func erase() {
        switch place {
        case .cursor: TerminalOutput.write(1, "\r\u{1B}[K")
        case .screen(let row, _, _, _): TerminalOutput.write(1, "\u{1B}7\u{1B}[\(row + 1);1H\u{1B}[m\u{1B}[K\u{1B}8")
        }
    }

    /// "connecting to host… (q quits)", then "host: 12.3 KB at 45 KB/s (q quits)".
    /// Fitted to `columns - 1` (a line that wrapped would leave its first part behind when it
    /// is rewritten or erased): without " (q quits)", then without "animplay: ", then cut.
    private func text(_ now: UInt64, columns: Int) -> String {
        let core: String
        if let p = state.withLock({ $0.spool })?.progress, p.count > 0 {
            let seconds = Double(now - p.startedAt) / 1e9
            var t = "\(host): \(PlaybackLoop.fixed(Double(p.count) / 1024, 1)) KB"
            if let total = p.expected, total > 0 { t += " of \(PlaybackLoop.fixed(Double(total) / 1024, 1)) KB" }
            if seconds > 0.2 { t += " at \(Int(Double(p.count) / 1024 / seconds)) KB/s" }
            core = t + ", waiting for the first frame"
        } else {
            core = "connecting to \(host)\u{2026}"
        }
        let width = max(1, columns - 1)
        for candidate in ["animplay: \(core) (q quits)", "animplay: \(core)", core] where candidate.count <= width {
            return candidate
        }
        return String(core.prefix(width))
    }

    /// The host of an http(s) URL, without user and password, control characters as `?`.
    static func host(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return String(hostPort.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0) })
    }
}
