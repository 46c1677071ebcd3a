#if canImport(Glibc)
import Glibc
#endif
import AnimatedCore
import CNcurses
import Testing
@testable import animplay

// Glibc's Swift module leaves out the X/Open pty calls (stdlib.h declares them only under
// _XOPEN_SOURCE); their C signatures are plain enough to bind by name.
@_silgen_name("posix_openpt") private func posix_openpt(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantpt(_ fd: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockpt(_ fd: Int32) -> Int32
@_silgen_name("ptsname") private func ptsname(_ fd: Int32) -> UnsafeMutablePointer<CChar>?

/// Curses started on a pseudo-terminal the test owns (never the test's own terminal), and what
/// the terminal is left with. ncurses is one global state: these run one at a time.
@Suite(.serialized) struct ScreenStartupTests {
    /// A pty pair: the master reads what the screen wrote, the slave is the screen's terminal.
    final class PTY {
        let master: Int32
        let slave: Int32
        init() throws {
            master = posix_openpt(O_RDWR | O_NOCTTY)
            try #require(master >= 0)
            try #require(grantpt(master) == 0 && unlockpt(master) == 0)
            let name = String(cString: try #require(ptsname(master)))
            slave = open(name, O_RDWR | O_NOCTTY)
            try #require(slave >= 0)
            var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
            _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        }
        deinit { close(master); close(slave) }

        func modes() -> termios {
            var t = termios()
            tcgetattr(slave, &t)
            return t
        }

        /// Everything written to the terminal so far.
        func written() -> String {
            var out: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &buf, buf.count)
                if n <= 0 { break }
                out += buf[0..<n]
            }
            return String(decoding: out, as: UTF8.self)
        }

        /// The screen's terminal: its own FILEs on duplicates of the slave (the screen closes input).
        func terminal() -> NcursesScreen.Terminal {
            NcursesScreen.Terminal(input: fdopen(dup(slave), "r"), ownsInput: true,
                                   output: fdopen(dup(slave), "w"), outputFD: slave, type: "xterm-256color")
        }
    }

    /// The last of `on` / `off` in `text`: true when `on` came last.
    static func lastIsOn(_ text: String, on: String, off: String) -> Bool? {
        let a = text.ranges(of: on).last?.lowerBound, b = text.ranges(of: off).last?.lowerBound
        switch (a, b) {
        case (nil, nil): return nil
        case (_?, nil): return true
        case (nil, _?): return false
        case let (a?, b?): return a > b
        }
    }

    static func expectRestored(_ pty: PTY, before: termios) {
        let after = pty.modes()
        #expect(after.c_lflag == before.c_lflag, "echo/canonical modes not restored")
        #expect(after.c_iflag == before.c_iflag && after.c_oflag == before.c_oflag)
        let text = pty.written()
        #expect(text.contains("\u{1B}[?1049h"), "curses never entered the alternate screen: \(text.debugDescription)")
        #expect(lastIsOn(text, on: "\u{1B}[?1049h", off: "\u{1B}[?1049l") == false, "left on the alternate screen")
        #expect(lastIsOn(text, on: "\u{1B}[?25l", off: "\u{1B}[?25h") != true, "cursor left hidden")
    }

    @Test func startAndEndRestoreTheTerminal() throws {
        let pty = try PTY()
        let before = pty.modes()
        let files = pty.terminal()
        do {
            let screen = try NcursesScreen(terminal: files)
            #expect(screen.rows == 24 && screen.columns == 80)
            #expect(pty.modes().c_lflag & tcflag_t(ECHO) == 0, "curses did not turn echo off")
            screen.end()
        }
        fclose(files.output)
        Self.expectRestored(pty, before: before)
    }

    /// Before: `newwin(...)!` trapped with curses active (alternate screen, hidden cursor, no
    /// echo). Now: a one-line error, exit status 1, and the terminal as it was.
    @Test func failedWindowIsAnErrorAndRestoresTheTerminal() throws {
        let pty = try PTY()
        let before = pty.modes()
        let files = pty.terminal()
        do {
            _ = try NcursesScreen(terminal: files, makeInputWindow: { nil })
            Issue.record("the screen started without its window")
        } catch {
            #expect(error.line == "animplay: cannot start the screen: curses could not create a window (out of memory)")
            #expect(error.code == 1)
        }
        fclose(files.output)
        Self.expectRestored(pty, before: before)
    }

    /// Curses refused on `pty` with `files` in one line, `message`: nothing written, the modes
    /// as they were.
    static func expectRefused(_ pty: PTY, _ files: NcursesScreen.Terminal, _ message: String) {
        let before = pty.modes()
        do {
            _ = try NcursesScreen(terminal: files)
            Issue.record("curses started: expected \(message)")
        } catch {
            #expect(error.line == message)
        }
        fclose(files.output)
        #expect(pty.written().isEmpty)
        #expect(pty.modes().c_lflag == before.c_lflag)
    }

    @Test func unknownTerminalTypeIsAnErrorAndWritesNothing() throws {
        let pty = try PTY()
        var files = pty.terminal()
        files.type = "no-such-terminal"
        Self.expectRefused(pty, files, "animplay: cannot use terminal type 'no-such-terminal' (no terminfo entry?)")
    }

    /// A window curses would fill three screens of (a pty may say 65535x65535) is refused
    /// before curses starts. Resizes to one are held.
    @Test func aWindowOfAbsurdSizeIsRefusedBeforeCursesStarts() throws {
        let pty = try PTY()
        var size = winsize(ws_row: 65535, ws_col: 65535, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(pty.slave, UInt(TIOCSWINSZ), &size)
        Self.expectRefused(pty, pty.terminal(),
                           "animplay: the terminal's window is 65535x65535 cells, more than animplay draws in (at most 1048576 cells)")
        #expect(NcursesScreen.heldSize(rows: 65535, columns: 65535) == (256, 4096))
        #expect(NcursesScreen.heldSize(rows: 540, columns: 1920) == (540, 1920))
        #expect(NcursesScreen.heldSize(rows: 65535, columns: 16) == (65535, 16))
        #expect(NcursesScreen.heldSize(rows: 2, columns: 65535) == (2, 65535))   // 131 070 cells: within
    }

    /// The question whether an entry exists (`TerminfoEntry`) loads nothing into curses: its
    /// current entry is the one it had. Here with the suite's other users of curses' state.
    @Test func askingWhetherAnEntryExistsLeavesCursesAsItWas() {
        let before = animplay_cur_term()
        #expect(animplay_terminfo_exists("xterm-256color") == 1)
        #expect(animplay_terminfo_exists("no-such-terminal-anywhere") == 0)
        #expect(animplay_cur_term() == before)
    }

    /// A thread the system refuses is reported without the file name and with exit status 1
    /// (before: "animplay: FILE: too large: cannot start the decoding thread (error 11)", status 4).
    @Test func systemErrorsDoNotBlameTheFile() {
        let f = CLIFailure(file: "x.gif", error: AnimatedError.system("cannot start the decoding thread: Resource temporarily unavailable"))
        #expect(f.line == "animplay: cannot start the decoding thread: Resource temporarily unavailable")
        #expect(f.code == 1)
        let g = CLIFailure(file: "x.gif", error: AnimatedError.limitExceeded("1 frames exceed 0"))
        #expect(g.line == "animplay: x.gif: too large: 1 frames exceed 0" && g.code == 4)
    }
}
