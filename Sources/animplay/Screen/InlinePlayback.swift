import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// `--inline`: plays in the normal screen at the cursor, as `cat` of an image would print it,
/// and leaves the last frame there (and so in the scrollback).
///
/// No curses (it would take the whole screen): the picture's rows are reserved by printing
/// newlines (the terminal scrolls the prompt up if the cursor is near the bottom), the cursor
/// ends on the line below them, and every frame is drawn by moving up over the reserved rows
/// and printing them again — relative moves only, so nothing depends on where the terminal put
/// the lines. A resize wipes the old rows and reserves new ones at the new size (terminals
/// that reflow the normal screen, such as kitty and VTE, move old lines anyway). Keys come
/// from the tty with echo and line editing off; cells only (an image protocol's picture cannot
/// be redrawn in place in the normal screen without leaving copies in the scrollback).
final class InlinePlayback {
    let player: Player
    let signals: SignalPipe
    private let renderer: CellRenderer
    private let mode: ColorMode
    private let layoutFor: (_ rows: Int, _ columns: Int) -> RenderLayout
    private let grid = CellGrid()
    private var reserved = 0
    private var saved = termios()
    /// The keyboard: /dev/tty (standard input may be the image).
    private let tty: Int32
    private(set) var hasFrame = false

    init(player: Player, signals: SignalPipe, renderer: CellRenderer, mode: ColorMode,
         layoutFor: @escaping (_ rows: Int, _ columns: Int) -> RenderLayout) {
        self.player = player; self.signals = signals; self.renderer = renderer; self.mode = mode
        self.layoutFor = layoutFor
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        tty = fd >= 0 ? fd : 0
    }

    deinit { if tty > 0 { close(tty) } }

    /// The terminal's size (24x80 if unknown).
    private var windowSize: (rows: Int, columns: Int) {
        var r: Int32 = 24, c: Int32 = 80
        _ = animplay_window_size(1, &r, &c)
        return (Int(r), Int(c))
    }

    func run(typed: [UInt8]) -> PlaybackEnd {
        tcgetattr(tty, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        raw.c_cc.6 = 0; raw.c_cc.5 = 0   // VMIN, VTIME: reads never block
        tcsetattr(tty, TCSANOW, &raw)
        TerminalOutput.write(1, "\u{1B}[?25l")     // hide the cursor while playing
        defer {
            TerminalOutput.write(1, "\u{1B}[?25h")
            tcsetattr(tty, TCSANOW, &saved)
        }
        reserve()
        var pending = typed
        while true {
            for s in signals.drain() {
                switch s {
                case SIGWINCH:
                    wipe(); reserve(); hasFrame = false
                    player.resize(to: layoutFor(windowSize.rows - 1, windowSize.columns).size)
                case SIGCONT: break
                case SIGTSTP:
                    player.suspend()
                    TerminalOutput.write(1, "\u{1B}[?25h")
                    tcsetattr(tty, TCSANOW, &saved)
                    kill(getpid(), SIGSTOP)
                    tcsetattr(tty, TCSANOW, &raw)
                    TerminalOutput.write(1, "\u{1B}[?25l")
                    draw()
                    player.resume()
                default: return .signal(s)
                }
            }
            let update = player.update()
            if let error = update.error { return .failed(error) }
            if let frame = update.frame {
                renderer.render(frame, into: grid)
                draw()
            }
            if update.finished && !player.status.paused { return .finished }
            wait(until: update.nextDeadline)
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = read(tty, &buffer, buffer.count)
            if n > 0 { pending += buffer[0..<n] }
            for action in KeyMap.actions(for: pending.map { Int32($0) }) {
                switch action {
                case .quit: return .quit
                case .togglePause: player.togglePause()
                case .step(let d): player.step(d)
                case .faster: player.setSpeed(player.status.speed * KeyMap.speedStep)
                case .slower: player.setSpeed(player.status.speed / KeyMap.speedStep)
                case .toggleReverse: player.toggleReverse()
                case .restart: player.restart()
                case .toggleStatus, .nextFile, .previousFile: break
                }
            }
            pending = []
        }
    }

    /// Rows for the picture below the cursor; the cursor stays on the line after them.
    private func reserve() {
        reserved = max(1, layoutFor(windowSize.rows - 1, windowSize.columns).rows)
        TerminalOutput.write(1, [UInt8](repeating: 0x0A, count: reserved))
    }

    /// Erases the reserved rows (before reserving new ones at another size).
    private func wipe() {
        guard reserved > 0 else { return }
        TerminalOutput.write(1, "\u{1B}[\(reserved)A\r\u{1B}[J")
    }

    /// The current frame over the reserved rows; the cursor ends below them.
    private func draw() {
        // A frame from before a resize taller than the rows now reserved would scroll: the
        // next one comes at the new size.
        guard grid.rows > 0, grid.rows <= reserved else { return }
        var writer = SGRCellWriter(mode: mode)
        writer.printLines(grid)
        var out = Array("\u{1B}[\(reserved)A\r".utf8)
        out += writer.bytes
        // A frame from before a resize may have fewer rows than reserved: keep the cursor below.
        if grid.rows < reserved { out += Array("\u{1B}[\(reserved - grid.rows)B".utf8) }
        TerminalOutput.write(1, out)
        hasFrame = true
    }

    private func wait(until deadline: UInt64?) {
        waitForInput(tty, orSignal: signals.readFD, until: deadline)
    }
}
