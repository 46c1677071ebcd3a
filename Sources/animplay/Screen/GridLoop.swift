import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// `--grid CxR`: several animations at once, each in its own tile and on its own clock.
///
/// Each tile has its own `Player` (its own schedule, plays and frame buffer), which prepares
/// plain RGBA at the tile's fitted size. Whenever a tile's frame changes, the tiles are pasted
/// into one picture the size of the screen box, which goes through the ordinary output
/// (cells, kitty, sixel, iTerm2) as one frame: one code path for every terminal, at the cost
/// of preparing the whole picture per change (the display rate cap bounds how often).
///
/// More files than tiles: the files are a queue. A tile whose file has played its plays (or
/// failed) takes the next file not yet shown; `n` moves every tile on to the next C×R files
/// (a page), `p` back to the C×R before the first one shown; when every file has been shown
/// and every tile has finished, the grid ends (`n` then ends it too, as in a playlist). Files
/// are opened when their turn comes (`open`), so a URL says it is connecting then.
final class GridLoop {
    struct Tile {
        /// nil: an empty tile (the last page has fewer files than tiles).
        var player: Player?
        var name: String
        /// The file's place in the list.
        var file: Int
        /// Where the animation sits in the picture, in pixels.
        var x = 0, y = 0
        var size = RenderSize(width: 1, height: 1)
        var frame: ScaledFrame?
        /// Outside the box (a window shrunk below the grid's rows or columns): its player is
        /// suspended, so that what cannot be seen is not decoded, until a resize shows it again.
        var hidden = false
    }

    private var tiles: [Tile]
    private let columns: Int, rows: Int
    let screen: NcursesScreen
    let signals: SignalPipe
    let output: any FrameOutput
    private var showStatus: Bool
    private let spareRow: Bool
    /// The largest picture the output shows (`OutputPlan.maxPicture`): the grid's picture, the
    /// whole box, keeps within it (xterm drops a larger sixel image whole).
    private let maxPicture: RenderSize?
    private let maxFPS: Double
    private var picture: Canvas?
    private var pictureIndex = 0
    private var lastCompose: UInt64 = 0
    private(set) var errors: [(String, AnimatedError)] = []
    /// How many files there are, and the first one no tile has shown yet.
    private let fileCount: Int
    private var next: Int
    /// A player for file i and its name, or nil when it cannot be opened (the caller reports
    /// it); called on the main thread while the screen is up.
    private let open: (Int) -> (Player, String)?
    /// Players done with (replaced in their tile), for the warnings after playing.
    private(set) var retired: [(Player, String)] = []

    /// `players`: one per tile, row-major, files 0..<players.count of `fileCount`; `spareRow`:
    /// keep off the last row (inline images); `maxPicture`: the output's limit, if any.
    init(players: [(Player, String)], fileCount: Int, open: @escaping (Int) -> (Player, String)?,
         columns: Int, rows: Int, screen: NcursesScreen, signals: SignalPipe,
         output: any FrameOutput, showStatus: Bool, spareRow: Bool, maxPicture: RenderSize? = nil, maxFPS: Double) {
        tiles = players.enumerated().map { Tile(player: $0.element.0, name: $0.element.1, file: $0.offset) }
        self.fileCount = fileCount; next = players.count; self.open = open
        self.columns = columns; self.rows = rows
        self.screen = screen; self.signals = signals; self.output = output
        self.showStatus = showStatus; self.spareRow = spareRow; self.maxPicture = maxPicture; self.maxFPS = maxFPS
        relayout()
    }

    /// Every player still in a tile (the caller stops them and reports their warnings).
    var players: [(Player, String)] { tiles.compactMap { t in t.player.map { ($0, t.name) } } }

    var hasFrame: Bool { output.hasFrame }

    /// The picture's first column (0 unless `maxPicture` narrowed it): the last frame is
    /// printed there at exit.
    var pictureColumn: Int { box.column }

    /// The box for the picture: the screen less the status line (and the spare row), within
    /// `maxPicture` (`pictureBox`).
    private var box: (rows: Int, columns: Int, row: Int, column: Int) {
        Self.pictureBox(rows: max(1, Self.pictureRows(screen.rows, showStatus: showStatus, spareRow: spareRow)),
                        columns: max(1, screen.columns), cell: output.cell, maxPicture: maxPicture)
    }

    /// The rows of a screen `rows` tall the picture may use: less the status line, or the
    /// spare row an inline image output keeps when no status line is shown.
    static func pictureRows(_ rows: Int, showStatus: Bool, spareRow: Bool) -> Int {
        rows - (showStatus ? 1 : 0) - (spareRow && !showStatus ? 1 : 0)
    }

    /// The grid's picture in a box of `rows` × `columns` cells: the whole box, or the most whole
    /// cells whose pixels fit in `maxPicture` (at least one cell), centred in the box; `row`,
    /// `column`: where it starts.
    static func pictureBox(rows: Int, columns: Int, cell: RenderSize, maxPicture: RenderSize?)
        -> (rows: Int, columns: Int, row: Int, column: Int) {
        guard let m = maxPicture else { return (rows, columns, 0, 0) }
        let r = min(rows, max(1, m.height / max(1, cell.height))), c = min(columns, max(1, m.width / max(1, cell.width)))
        return (r, c, (rows - r) / 2, (columns - c) / 2)
    }

    /// Tile sizes and places for the current screen; players re-render at the new sizes.
    private func relayout() {
        let (boxRows, boxColumns, _, _) = box
        let cell = output.cell
        for i in tiles.indices { place(i) }
        picture = Canvas(width: boxColumns * cell.width, height: boxRows * cell.height)
        output.invalidate()
    }

    /// Tile i's animation fitted and centred in its share of the box.
    private func place(_ i: Int) {
        guard let player = tiles[i].player else { return }
        let (boxRows, boxColumns, _, _) = box
        let cell = output.cell
        let tileRows = max(1, boxRows / rows), tileColumns = max(1, boxColumns / columns)
        let info = player.info
        let l = RenderLayout.compute(canvasWidth: info.width, canvasHeight: info.height, columns: tileColumns,
                                     rows: tileRows, fit: .fit, scale: nil, cell: cell)
        tiles[i].x = ((i % columns) * tileColumns + l.column) * cell.width
        tiles[i].y = ((i / columns) * tileRows + l.row) * cell.height
        if tiles[i].size != l.size || tiles[i].frame == nil { player.resize(to: l.size) }
        tiles[i].size = l.size
        let hidden = (i % columns) * tileColumns >= boxColumns || (i / columns) * tileRows >= boxRows
        if hidden != tiles[i].hidden {
            tiles[i].hidden = hidden
            if hidden { player.suspend() } else { player.resume() }
        }
    }

    /// Tile i takes the first file from `from` on that opens (nil: none is left; the tile keeps
    /// what it shows, or is emptied when `empty`). Returns whether it got one.
    @discardableResult
    private func take(_ i: Int, from: Int, emptyIfNone: Bool = false) -> Bool {
        var f = from
        while f < fileCount {
            if let (player, name) = open(f) {
                if let old = tiles[i].player { old.stop(); retired.append((old, tiles[i].name)) }
                tiles[i].player = player; tiles[i].name = name; tiles[i].file = f
                tiles[i].frame = nil; tiles[i].hidden = false
                next = max(next, f + 1)
                place(i)
                return true
            }
            f += 1
            next = max(next, f)
        }
        if emptyIfNone, let old = tiles[i].player {
            old.stop(); retired.append((old, tiles[i].name))
            tiles[i].player = nil; tiles[i].frame = nil
        }
        return false
    }

    /// `n` (+1): every tile on to the next files; false when every file has been shown. `p`
    /// (-1): the C×R files before the first one shown (the first page again on the first).
    private func page(_ step: Int) -> Bool {
        let count = tiles.count
        let start: Int
        if step > 0 {
            guard next < fileCount else { return false }
            start = next
        } else {
            start = max(0, (tiles.filter { $0.player != nil }.map(\.file).min() ?? 0) - count)
            next = start
        }
        var f = start
        for i in tiles.indices {
            take(i, from: f, emptyIfNone: true)
            f = max(f, next)
        }
        output.invalidate()
        return true
    }

    func run() -> PlaybackEnd {
        var dirty = true
        while true {
            let received = signals.drain()
            for s in received {
                switch s {
                case SIGWINCH:
                    _ = output.syncCellSize()
                    _ = screen.syncSize()
                    relayout(); dirty = true
                case SIGCONT:
                    output.invalidate(); dirty = true
                case SIGTSTP:
                    for p in live { p.suspend() }
                    screen.suspend()
                    kill(getpid(), SIGSTOP)
                    screen.resume()
                    _ = screen.syncSize()
                    relayout(); dirty = true
                    for t in tiles where !t.hidden { t.player?.resume() }
                default: return .signal(s)
                }
            }
            var deadline: UInt64?
            var allFinished = true
            for i in tiles.indices {
                guard let player = tiles[i].player else { continue }
                let u = player.update()
                if let error = u.error, !errors.contains(where: { $0.0 == tiles[i].name }) { errors.append((tiles[i].name, error)) }
                if let f = u.frame { tiles[i].frame = f; dirty = true }
                if let d = u.nextDeadline { deadline = min(deadline ?? d, d) }
                let done = u.finished || u.error != nil
                // Its plays are over: the next file not yet shown takes the tile.
                if done && !player.status.paused && next < fileCount && take(i, from: next) {
                    dirty = true; deadline = MonotonicClock.nanoseconds()
                    allFinished = false
                    continue
                }
                // A hidden tile waits for a resize that shows it: the grid ends when what is
                // on screen has played.
                allFinished = allFinished && (done || tiles[i].hidden)
            }
            let now = MonotonicClock.nanoseconds()
            let tick = UInt64(1e9 / max(1, maxFPS))
            if dirty {
                // One picture per display tick at most, whatever the tiles' own rates.
                if now - lastCompose >= tick || lastCompose == 0 {
                    present(); dirty = false; lastCompose = now
                } else {
                    deadline = min(deadline ?? (lastCompose + tick), lastCompose + tick)
                }
            }
            let paused = !live.isEmpty && live.allSatisfy { $0.status.paused }
            if allFinished && !paused && !dirty { return .finished }
            wait(until: deadline)
            for action in KeyMap.actions(for: screen.readKeys()) {
                switch action {
                case .quit: return .quit
                case .togglePause: for p in live { p.togglePause() }
                case .faster: for p in live { p.setSpeed(p.status.speed * KeyMap.speedStep) }
                case .slower: for p in live { p.setSpeed(p.status.speed / KeyMap.speedStep) }
                case .toggleReverse: for p in live { p.toggleReverse() }
                case .restart: for p in live { p.restart() }
                case .step(let d): for p in live { p.step(d) }
                case .toggleStatus: showStatus.toggle(); relayout()
                case .nextFile: if !page(1) { return .finished }
                case .previousFile: _ = page(-1)
                }
                dirty = true
            }
        }
    }

    /// The players in the tiles.
    private var live: [Player] { tiles.compactMap(\.player) }

    /// Pastes every tile's frame into the picture and shows it.
    private func present() {
        guard let picture else { return }
        picture.clear()
        picture.withUnsafeMutableBytes { dst in
            for t in tiles {
                guard let f = t.frame, !f.pixels.isEmpty else { continue }
                let w = min(f.size.width, picture.width - t.x), h = min(f.size.height, picture.height - t.y)
                guard w > 0, h > 0 else { continue }
                f.pixels.withUnsafeBytes { src in
                    for row in 0..<h {
                        let from = src.baseAddress! + row * f.size.width * 4
                        let to = dst.baseAddress! + ((t.y + row) * picture.width + t.x) * 4
                        to.copyMemory(from: from, byteCount: w * 4)
                    }
                }
            }
        }
        pictureIndex += 1
        let size = RenderSize(width: picture.width, height: picture.height)
        output.show(output.preparer.scale(picture, index: pictureIndex, to: size))
        let at = box
        output.present(at: RenderLayout(size: size, row: at.row, column: at.column, cell: output.cell),
                       status: showStatus ? statusLine() : nil)
    }

    private func statusLine() -> String {
        let paused = live.allSatisfy { $0.status.paused }
        let parts = live.map { p -> String in
            let s = p.status
            return "\(s.frameIndex + 1)/\(s.frameCount)"
        }
        let files = fileCount > tiles.count
            ? "  files " + tiles.filter { $0.player != nil }.map { "\($0.file + 1)" }.joined(separator: " ") + " of \(fileCount) (n p)"
            : ""
        return " \(paused ? "paused" : "playing")  grid \(columns)x\(rows)\(files)  frames " + parts.joined(separator: " ")
    }

    private func wait(until deadline: UInt64?) {
        waitForInput(screen.inputFD, orSignal: signals.readFD, until: deadline)
    }
}
