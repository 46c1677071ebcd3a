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
final class GridLoop {
    struct Tile {
        let player: Player
        let name: String
        /// Where the animation sits in the picture, in pixels.
        var x = 0, y = 0
        var size = RenderSize(width: 1, height: 1)
        var frame: ScaledFrame?
    }

    private var tiles: [Tile]
    private let columns: Int, rows: Int
    let screen: NcursesScreen
    let signals: SignalPipe
    let output: any FrameOutput
    private var showStatus: Bool
    private let spareRow: Bool
    private let maxFPS: Double
    private var picture: Canvas?
    private var pictureIndex = 0
    private var lastCompose: UInt64 = 0
    private(set) var errors: [(String, AnimatedError)] = []

    /// `players`: one per tile, row-major; `spareRow`: keep off the last row (inline images).
    init(players: [(Player, String)], columns: Int, rows: Int, screen: NcursesScreen, signals: SignalPipe,
         output: any FrameOutput, showStatus: Bool, spareRow: Bool, maxFPS: Double) {
        tiles = players.map { Tile(player: $0.0, name: $0.1) }
        self.columns = columns; self.rows = rows
        self.screen = screen; self.signals = signals; self.output = output
        self.showStatus = showStatus; self.spareRow = spareRow; self.maxFPS = maxFPS
        relayout()
    }

    var hasFrame: Bool { output.hasFrame }

    /// The box for the picture: the screen less the status line (and the spare row).
    private var box: (rows: Int, columns: Int) {
        (max(1, screen.rows - (showStatus ? 1 : 0) - (spareRow && !showStatus ? 1 : 0)), max(1, screen.columns))
    }

    /// Tile sizes and places for the current screen; players re-render at the new sizes.
    private func relayout() {
        let (boxRows, boxColumns) = box
        let cell = output.cell
        let tileRows = max(1, boxRows / rows), tileColumns = max(1, boxColumns / columns)
        for i in tiles.indices {
            let info = tiles[i].player.info
            let l = RenderLayout.compute(canvasWidth: info.width, canvasHeight: info.height, columns: tileColumns,
                                         rows: tileRows, fit: .fit, scale: nil, cell: cell)
            tiles[i].x = ((i % columns) * tileColumns + l.column) * cell.width
            tiles[i].y = ((i / columns) * tileRows + l.row) * cell.height
            if tiles[i].size != l.size { tiles[i].player.resize(to: l.size) }
            tiles[i].size = l.size
        }
        picture = Canvas(width: boxColumns * cell.width, height: boxRows * cell.height)
        output.invalidate()
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
                    for t in tiles { t.player.suspend() }
                    screen.suspend()
                    kill(getpid(), SIGSTOP)
                    screen.resume()
                    _ = screen.syncSize()
                    relayout(); dirty = true
                    for t in tiles { t.player.resume() }
                default: return .signal(s)
                }
            }
            var deadline: UInt64?
            var allFinished = true
            for i in tiles.indices {
                let u = tiles[i].player.update()
                if let error = u.error, !errors.contains(where: { $0.0 == tiles[i].name }) { errors.append((tiles[i].name, error)) }
                if let f = u.frame { tiles[i].frame = f; dirty = true }
                if let d = u.nextDeadline { deadline = min(deadline ?? d, d) }
                allFinished = allFinished && (u.finished || u.error != nil)
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
            let paused = tiles.allSatisfy { $0.player.status.paused }
            if allFinished && !paused && !dirty { return .finished }
            wait(until: deadline)
            for action in KeyMap.actions(for: screen.readKeys()) {
                switch action {
                case .quit: return .quit
                case .togglePause: for t in tiles { t.player.togglePause() }
                case .faster: for t in tiles { t.player.setSpeed(t.player.status.speed * KeyMap.speedStep) }
                case .slower: for t in tiles { t.player.setSpeed(t.player.status.speed / KeyMap.speedStep) }
                case .toggleReverse: for t in tiles { t.player.toggleReverse() }
                case .restart: for t in tiles { t.player.restart() }
                case .step(let d): for t in tiles { t.player.step(d) }
                case .toggleStatus: showStatus.toggle(); relayout()
                case .nextFile, .previousFile: break
                }
                dirty = true
            }
        }
    }

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
        output.present(at: RenderLayout(size: size, row: 0, column: 0, cell: output.cell),
                       status: showStatus ? statusLine() : nil)
    }

    private func statusLine() -> String {
        let paused = tiles.allSatisfy { $0.player.status.paused }
        let parts = tiles.map { t -> String in
            let s = t.player.status
            return "\(s.frameIndex + 1)/\(s.frameCount)"
        }
        return " \(paused ? "paused" : "playing")  grid \(columns)x\(rows)  frames " + parts.joined(separator: " ")
    }

    private func wait(until deadline: UInt64?) {
        waitForInput(screen.inputFD, orSignal: signals.readFD, until: deadline)
    }
}
