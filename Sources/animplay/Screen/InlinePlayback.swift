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
/// No curses (it would take the whole screen): the picture's rows are reserved below the
/// prompt and drawn by relative moves (`InlineRegion`), so nothing depends on where the
/// terminal put the lines. A resize wipes the old rows and reserves new ones at the new size
/// (terminals that reflow the normal screen, such as kitty and VTE, move old lines anyway).
/// Keys come from the tty with echo and line editing off, through the reply filter (a late
/// probe answer or a kitty error is no key).
///
/// Cells are written here; pixels go through the plan's `FrameOutput` writing to the region:
/// sixel and iTerm2 images are drawn over the reserved rows each frame (they become the
/// screen's own cells: the last one stays), kitty's placement is created once and its frame
/// switched, and at the end replaced by a still (`keepInPlace`) that scrolls with the text.
final class InlinePlayback {
    /// How frames reach the region.
    enum Drawing {
        case cells(CellRenderer, ColorMode)
        case output(any FrameOutput)
    }

    let player: Player
    let signals: SignalPipe
    let region: InlineRegion
    private(set) var drawing: Drawing
    /// Rows kept blank between the picture and the cursor's line (sixel, iTerm2: one).
    private var spareRows: Int
    /// The layout in a box of rows × columns for cells of a size (row 0, column 0 here).
    private let layoutFor: (_ rows: Int, _ columns: Int, _ cell: RenderSize) -> RenderLayout
    /// After the terminal refused pixels: cells, their renderer and preparer.
    private let fallback: (() -> (Drawing, any FrameScaler))?
    /// Why pixels were given up (a warning), if they were.
    private(set) var fallbackReason: String?
    private let grid = CellGrid()
    private var layout = RenderLayout(size: RenderSize(width: 1, height: 1), row: 0, column: 0)
    private var saved = termios()
    private var replies = KeyReplyFilter()
    /// The keyboard: /dev/tty (standard input may be the image).
    private let tty: Int32
    private var cellsShown = false

    init(player: Player, signals: SignalPipe, region: InlineRegion, drawing: Drawing, spareRows: Int = 0,
         layoutFor: @escaping (_ rows: Int, _ columns: Int, _ cell: RenderSize) -> RenderLayout,
         fallback: (() -> (Drawing, any FrameScaler))? = nil) {
        self.player = player; self.signals = signals; self.region = region; self.drawing = drawing
        self.spareRows = spareRows; self.layoutFor = layoutFor; self.fallback = fallback
        // kitty holds the frames it was sent: the player need not keep them too.
        if case .output(let o) = drawing { (o as? KittyOutput)?.terminalFrames = player.terminalFrames() }
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        tty = fd >= 0 ? fd : 0
    }

    deinit { if tty > 0 { close(tty) } }

    /// DA1 replies the key filter took out (the probe's late sentinels).
    var sentinelsSeen: Int { replies.sentinelsSeen }

    var hasFrame: Bool {
        switch drawing {
        case .cells: cellsShown
        case .output(let o): o.hasFrame
        }
    }

    /// The terminal's size (24x80 if unknown).
    private var windowSize: (rows: Int, columns: Int) {
        var r: Int32 = 24, c: Int32 = 80
        _ = animplay_window_size(1, &r, &c)
        return (Int(r), Int(c))
    }

    private var cell: RenderSize {
        switch drawing {
        case .cells: RenderLayout.halfBlockCell
        case .output(let o): o.cell
        }
    }

    /// The layout for the window now: the picture's rows, the spare ones and the cursor's line
    /// fit the screen.
    func currentLayout() -> RenderLayout {
        var l = layoutFor(windowSize.rows - 1 - spareRows, windowSize.columns, cell)
        l.row = 0; l.column = 0
        return l
    }

    func run(typed: [UInt8]) -> PlaybackEnd {
        tcgetattr(tty, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        raw.c_cc.6 = 0; raw.c_cc.5 = 0   // VMIN, VTIME: reads never block
        let rescue = TerminalRescue.enter(tty: tty, modes: saved, undo: TerminalRescue.imageCutShort + Array("\u{1B}[?25h".utf8))
        tcsetattr(tty, TCSANOW, &raw)
        TerminalOutput.write(1, "\u{1B}[?25l")     // hide the cursor while playing
        defer {
            TerminalOutput.write(1, "\u{1B}[?25h")
            tcsetattr(tty, TCSANOW, &saved)
            TerminalRescue.leave(rescue)
        }
        layout = currentLayout()
        region.reserve(layout.rows + spareRows)
        var pending = typed
        while true {
            for s in signals.drain() {
                switch s {
                case SIGWINCH:
                    region.wipe()
                    if case .output(let o) = drawing { o.invalidate(); _ = o.syncCellSize() }
                    cellsShown = false
                    layout = currentLayout()
                    region.reserve(layout.rows + spareRows)
                    player.resize(to: layout.size)
                case SIGCONT: break
                case SIGTSTP:
                    player.suspend()
                    TerminalOutput.write(1, "\u{1B}[?25h")
                    tcsetattr(tty, TCSANOW, &saved)
                    kill(getpid(), SIGSTOP)
                    tcsetattr(tty, TCSANOW, &raw)
                    TerminalOutput.write(1, "\u{1B}[?25l")
                    if case .output(let o) = drawing { o.invalidate() }
                    draw()
                    player.resume()
                default: return .signal(s)
                }
            }
            let update = player.update()
            if let error = update.error { return .failed(error) }
            if let frame = update.frame {
                switch drawing {
                case .cells(let renderer, _): renderer.render(frame, into: grid); cellsShown = true
                case .output(let o): o.show(frame)
                }
                draw()
            }
            if case .output(let o) = drawing, let failure = o.failure { fallBack(o.failureSubject, failure) }
            if update.finished && !player.status.paused { return .finished }
            waitForInput(tty, orSignal: signals.readFD, orArrival: player.arrivals, until: update.nextDeadline)
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = read(tty, &buffer, buffer.count)
            if n > 0 { pending += buffer[0..<n] }
            let keys = replies.filter(pending.map { Int32($0) }, now: MonotonicClock.nanoseconds())
            pending = []
            if case .output(let o) = drawing {
                o.accept(replies: replies.takeGraphicsReplies())
                if let failure = o.failure { fallBack(o.failureSubject, failure) }
            }
            for action in KeyMap.actions(for: keys) {
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
        }
    }

    /// Playback is over: the last frame stays where it is (`clear`: the rows are erased and
    /// the cursor goes back to where they started).
    func finish(clear: Bool) {
        if case .output(let o) = drawing {
            // The still needs the data kitty held.
            if !clear { PlaybackLoop.prepareFrameOnScreen(o, player: player) }
            if clear { o.leave() } else { o.keepInPlace() }
        }
        if clear { region.wipe() }
    }

    /// The terminal refused pixels (a kitty upload error): cells from now on, in rows
    /// reserved again for them.
    private func fallBack(_ subject: String, _ reason: String) {
        guard let fallback, fallbackReason == nil else { return }
        if case .output(let o) = drawing { o.leave() }
        fallbackReason = "\(subject) (\(reason.prefix(80))); using cells"
        let (cells, preparer) = fallback()
        drawing = cells
        spareRows = 0
        region.wipe()
        cellsShown = false
        layout = currentLayout()
        region.reserve(layout.rows)
        player.resize(to: layout.size, scaler: preparer)
    }

    /// The current frame over the reserved rows; the cursor ends below them.
    private func draw() {
        switch drawing {
        case .output(let o):
            o.present(at: layout, status: nil)
        case .cells(_, let mode):
            // A frame from before a resize taller than the rows now reserved would scroll: the
            // next one comes at the new size.
            guard cellsShown, grid.rows > 0, grid.rows <= region.rows else { return }
            var writer = SGRCellWriter(mode: mode)
            writer.printLines(grid)
            var out = region.cursorTo(row: 0, column: 0)
            out += writer.bytes
            // A frame from before a resize may have fewer rows than reserved: keep the cursor below.
            if grid.rows < region.rows { out += Array("\u{1B}[\(region.rows - grid.rows)B".utf8) }
            region.write(out)
        }
    }
}
