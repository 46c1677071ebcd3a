import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// The terminal while animplay plays: ncurses owns it. `newterm` on the tty (alternate screen,
/// saved modes), cbreak/noecho, keypad, hidden cursor, non-blocking input on a 1×1 window that
/// is never drawn (so reading keys never triggers a refresh of stdscr). `end()` restores
/// everything exactly as `newterm` found it; it is idempotent and every exit path calls it.
final class NcursesScreen {
    let outputFD: Int32
    let inputFD: Int32
    private let screen: OpaquePointer
    private let inputWindow: UnsafeMutablePointer<WINDOW>
    private let inputFile: UnsafeMutablePointer<FILE>
    private let ownsInputFile: Bool
    private(set) var rows: Int
    private(set) var columns: Int
    private(set) var ended = false
    let facts: TerminalColorFacts
    /// sc / rc from terminfo: brackets the cells animplay writes itself.
    let saveCursor: [UInt8]
    let restoreCursor: [UInt8]
    /// The tty's modes before curses, and the bytes that leave curses' screen (attributes,
    /// cursor, keypad, alternate screen): for a thread that must end the process while the
    /// main thread is blocked (`ConnectingLine` on the screen), where `end()` cannot be called.
    let shellModes: termios
    let leaveBytes: [UInt8]
    /// What undoes curses' screen if a signal that animplay does not handle ends it (nil
    /// while the screen is ended or suspended).
    private var rescue: TerminalRescue.Layer?

    /// The files curses runs on. `nil` in `init`: stdout, with keys from stdin when it is a
    /// terminal and from /dev/tty otherwise, and the terminal type from $TERM.
    struct Terminal {
        var input: UnsafeMutablePointer<FILE>
        /// Closed by the screen when it is done.
        var ownsInput: Bool
        var output: UnsafeMutablePointer<FILE>
        var outputFD: Int32
        /// A terminfo name; nil reads $TERM.
        var type: String?
    }

    /// Starts curses. `makeInputWindow` creates the 1×1 key window (tests make it fail): when
    /// it cannot, curses is ended again, the terminal restored, and the failure thrown.
    init(terminal: Terminal? = nil,
         makeInputWindow: () -> UnsafeMutablePointer<WINDOW>? = { newwin(1, 1, 0, 0) }) throws(CLIFailure) {
        Self.useUTF8Locale()
        let term: Terminal
        if let terminal {
            term = terminal
        } else if isatty(0) != 0 {
            // Keys come from the terminal even when stdin is redirected.
            term = Terminal(input: animplay_stdin(), ownsInput: false, output: animplay_stdout(), outputFD: 1)
        } else if let f = fopen("/dev/tty", "r") {
            term = Terminal(input: f, ownsInput: true, output: animplay_stdout(), outputFD: 1)
        } else {
            throw CLIFailure(message: "cannot open /dev/tty for keyboard input")
        }
        inputFile = term.input; ownsInputFile = term.ownsInput
        outputFD = term.outputFD
        inputFD = fileno(inputFile)
        var modes = termios()
        tcgetattr(inputFD, &modes)
        shellModes = modes
        use_tioctl(true)   // the kernel's window size wins over stale LINES/COLUMNS variables
        // curses allocates and fills three screens of the window's cells, about 120 GB each for
        // the 65535x65535 a pty may say. Refused before curses starts; a resize to one is held
        // to `mostCells` (`syncSize`).
        var r: Int32 = 0, c: Int32 = 0
        let known = animplay_window_size(term.outputFD, &r, &c) != 0
        if known, Int(r) * Int(c) > Self.mostCells {
            if ownsInputFile { fclose(inputFile) }
            throw CLIFailure(message: "the terminal's window is \(c)x\(r) cells, more than animplay draws in (at most \(Self.mostCells) cells)")
        }
        let started = TerminfoEntry.start(term.type) { type -> OpaquePointer? in
            type.map { $0.withCString { newterm($0, term.output, term.input) } } ?? newterm(nil, term.output, term.input)
        }
        switch started {
        case .success(let scr): screen = scr
        case .failure(let failed):
            if ownsInputFile { fclose(inputFile) }
            throw CLIFailure(message: TerminfoEntry.refusal(failed.type, window: known ? (Int(c), Int(r)) : nil))
        }
        cbreak(); noecho(); nonl()
        Self.stopOutputProcessing(outputFD)
        let std = animplay_stdscr()
        if let std {
            intrflush(std, false)
            leaveok(std, true)
        }
        _ = curs_set(0)
        set_escdelay(25)
        guard std != nil, let window = makeInputWindow() else {
            // Curses is active (alternate screen, hidden cursor, no echo): undo all of it.
            endwin()
            delscreen(screen)
            if ownsInputFile { fclose(inputFile) }
            throw CLIFailure(message: "cannot start the screen: curses could not create a window (out of memory)")
        }
        inputWindow = window
        keypad(inputWindow, true)
        nodelay(inputWindow, true)
        if has_colors() {
            start_color()
            use_default_colors()
        }
        rows = Int(animplay_lines()); columns = Int(animplay_cols())
        saveCursor = Self.capability("sc"); restoreCursor = Self.capability("rc")
        leaveBytes = ["sgr0", "cnorm", "rmkx", "rmcup"].flatMap { Self.capability($0) }
        facts = TerminalColorFacts(
            colors: has_colors() ? Int(animplay_colors()) : 0,
            pairs: has_colors() ? Int(animplay_color_pairs()) : 0,
            hasRGB: animplay_has_rgb() != 0,
            colortermTruecolor: TerminalColorFacts.colortermSaysTruecolor(getenv("COLORTERM").map { String(cString: $0) }),
            canSaveCursor: !saveCursor.isEmpty && !restoreCursor.isEmpty && !Self.capability("cup").isEmpty)
        enterRescue()
    }

    private func enterRescue() {
        rescue = TerminalRescue.enter(tty: inputFD, modes: shellModes, output: outputFD,
                                      undo: TerminalRescue.imageCutShort + leaveBytes)
    }

    private func leaveRescue() {
        if let rescue { TerminalRescue.leave(rescue) }
        rescue = nil
    }

    deinit {
        end()
        delwin(inputWindow)
        delscreen(screen)
        if ownsInputFile { fclose(inputFile) }
    }

    /// Turns the kernel's output processing (OPOST) off for as long as curses runs, and makes
    /// that curses' program mode (`def_prog_mode`), so that a resume after Ctrl-Z restores it and
    /// `endwin` restores the shell's modes. Why: `nonl()` already stopped newline translation,
    /// so what OPOST still did was look at every byte written, and a filled sixel video writes
    /// about 50 MB a play: `cat` of one play's 48 MB into a pty took 0.22 s of system time with
    /// it, 0.11 s without.
    private static func stopOutputProcessing(_ fd: Int32) {
        var modes = termios()
        guard tcgetattr(fd, &modes) == 0, modes.c_oflag & tcflag_t(OPOST) != 0 else { return }
        modes.c_oflag &= ~tcflag_t(OPOST)
        guard tcsetattr(fd, TCSANOW, &modes) == 0 else { return }
        def_prog_mode()
    }

    /// ncurses needs a UTF-8 LC_CTYPE to write the half blocks; fall back to C.UTF-8.
    static func useUTF8Locale() {
        setlocale(LC_CTYPE, "")
        let cs = String(cString: nl_langinfo(Int32(CODESET)))
        if cs != "UTF-8" && cs != "utf8" { setlocale(LC_CTYPE, "C.UTF-8") }
    }

    static func capability(_ name: String) -> [UInt8] {
        guard let s = animplay_tigetstr(name) else { return [] }
        return Array(String(cString: s).utf8)
    }

    /// The most cells of a window curses is started on or resized to: 2^20 (an 8K screen in a
    /// 4x8-pixel font has 1920x540, just under), about 90 MB of curses' screens.
    static let mostCells = 1 << 20

    /// The window size curses is given for a window of `rows`×`columns` cells: as it is within
    /// `mostCells`, else its top-left part of at most 4096 columns and `mostCells` cells.
    static func heldSize(rows: Int, columns: Int) -> (rows: Int, columns: Int) {
        guard rows * columns > mostCells else { return (rows, columns) }
        let c = min(columns, 4096)
        return (min(rows, mostCells / c), c)
    }

    /// Picks up a new terminal size (after SIGWINCH). Returns true when it changed.
    func syncSize() -> Bool {
        var r: Int32 = 0, c: Int32 = 0
        guard animplay_window_size(outputFD, &r, &c) != 0 else { return false }
        let held = Self.heldSize(rows: Int(r), columns: Int(c))
        (r, c) = (Int32(held.rows), Int32(held.columns))
        if Int(r) == rows && Int(c) == columns { return false }
        resizeterm(r, c)
        rows = Int(animplay_lines()); columns = Int(animplay_cols())
        return true
    }

    /// Keys typed since the last call (ncurses key codes; KEY_RESIZE is dropped: resizes come
    /// through the signal pipe; late terminal replies are dropped). The keypad's + − 0, which
    /// terminfo entries with extended names (xterm's kpADD, kpSUB, kpZRO) decode to codes of
    /// their own, come back as '+', '-', '0'.
    func readKeys() -> [Int32] {
        var keys: [Int32] = []
        while true {
            let k = wgetch(inputWindow)
            if k == ERR { break }
            if k != KEY_RESIZE { keys.append(k >= KEY_MAX ? Self.keypadMainKey(k) ?? k : k) }
        }
        return replyFilter.filter(keys, now: MonotonicClock.nanoseconds())
    }

    /// Writes DA1 and waits, at most `budgetNanoseconds`, for a DA1 reply, read from the tty
    /// directly (keys read meanwhile go back to the key reader): whatever answers has then
    /// processed everything written before. Inside tmux this is how animplay knows tmux has
    /// taken in its alternate-screen switch or a resize, after which tmux 3.3 drops passthrough
    /// until it has redrawn the pane. Returns false when no reply came in time.
    func roundTrip(budgetNanoseconds: UInt64 = 500_000_000) -> Bool {
        TerminalOutput.write(outputFD, TerminalQueries.primaryDeviceAttributes)
        let deadline = MonotonicClock.nanoseconds() + budgetNanoseconds
        var parser = TerminalReplyParser()
        var chunk = [UInt8](repeating: 0, count: 256)
        var typed: [UInt8] = []
        defer { pushBack(typed) }
        while true {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { return false }
            var pfd = pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32((deadline - now + 999_999) / 1_000_000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard n > 0 else { return false }
            var answered = false
            for e in parser.feed(chunk[0..<n]) {
                switch e {
                case .keys(let k): typed += k
                case .primaryDeviceAttributes: answered = true
                default: break
                }
            }
            if answered { return true }
        }
    }

    /// Terminal replies that arrive after the probe gave up on them are not keys.
    private var replyFilter = KeyReplyFilter()

    /// DA1 replies read among the keys so far (late probe sentinels: `TerminalProbe.absorbLate`).
    var sentinelsSeen: Int { replyFilter.sentinelsSeen }

    /// kitty graphics replies read among the keys since the last call (upload errors).
    /// Graphics replies read among the keys since the last call (kitty's upload errors), for
    /// the output to act on.
    func takeGraphicsReplies() -> [(id: UInt32?, message: String)] { replyFilter.takeGraphicsReplies() }

    /// Hands bytes read before curses started (keys typed during the terminal probe) to the
    /// key reader, in order: ncurses' push-back is a stack, so they go in reversed.
    func pushBack(_ bytes: [UInt8]) {
        // Its FIFO holds about 130 entries: a burst longer than that keeps its first 64 keys.
        for b in bytes.prefix(64).reversed() { _ = ungetch(Int32(b)) }
    }

    private static func keypadMainKey(_ code: Int32) -> Int32? {
        guard let name = keyname(code) else { return nil }
        switch String(cString: name) {
        case "kpADD": return 0x2B
        case "kpSUB": return 0x2D
        case "kpZRO": return 0x30
        default: return nil
        }
    }

    /// Gives the terminal back as `newterm` found it (Ctrl-Z), until `resume()`.
    func suspend() {
        guard !ended else { return }
        leaveRescue()
        endwin()
    }

    /// Back in curses mode after `suspend()`: the next `doupdate` restores the program's tty
    /// modes, the alternate screen, keypad mode and the hidden cursor; the screen's contents
    /// are unknown, so it repaints everything.
    func resume() {
        guard !ended else { return }
        clearok(animplay_curscr(), true)
        doupdate()
        enterRescue()
    }

    /// Leaves curses mode: attributes reset, cursor shown, alternate screen left, tty modes
    /// restored to what `newterm` saved.
    func end() {
        guard !ended else { return }
        ended = true
        leaveRescue()
        endwin()
    }
}
