import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// Puts frames (as cells) and the status line on the ncurses screen.
///
/// Each present is one ncurses update (`wnoutrefresh` + `doupdate`) followed, on the direct
/// path, by the image cells animplay writes itself:
///
///     doupdate()                 ncurses: status line, clears; its image area stays blank
///     sc  CUP/CUF SGR ▀▄ … sgr0  rc      changed image cells only, in 24-bit SGR
///
/// ncurses leaves attributes normal after doupdate and tracks the cursor position it left;
/// `sc`/`rc` (DECSC/DECRC) put cursor and attributes back, so its model of the terminal stays
/// true and it never overwrites the image (it only writes cells that change in its own model).
/// Whenever ncurses repaints the whole screen (first frame, resize, resume after Ctrl-Z) the
/// image is invalidated and rewritten in full.
final class PlaybackView: CellScreen {
    let screen: NcursesScreen
    var rows: Int { screen.rows }
    var columns: Int { screen.columns }
    let mode: ColorMode
    let path: CellPath
    private let shown = CellGrid()          // what is on the terminal
    private var shownLayout: RenderLayout?
    private var writer: SGRCellWriter
    private let statusPair: Int32
    private let statusReverse: Bool
    private var statusShown = false

    /// `plainStatus`: NO_COLOR is set (the status line then uses reverse video, no colour).
    init(screen: NcursesScreen, mode: ColorMode, path: CellPath, plainStatus: Bool) {
        self.screen = screen; self.mode = mode; self.path = path
        writer = SGRCellWriter(mode: mode, tolerance: SGRCellWriter.defaultTolerance)
        if !plainStatus && screen.facts.colors >= 8 {   // start_color() was called
            statusPair = alloc_pair(COLOR_BLACK, COLOR_CYAN); statusReverse = false
        } else {
            statusPair = 0; statusReverse = true
        }
    }

    /// Forces a full repaint on the next `present` (after a resize or a resume).
    func invalidate() { shownLayout = nil }

    /// Shows `grid` at `layout` (cells relative to the screen's top-left) and the status line
    /// on the bottom row when `status` is non-nil.
    func present(_ grid: CellGrid, at layout: RenderLayout, status: String?) {
        let std = animplay_stdscr()!
        let full = shownLayout != layout
        let visible = clipped(grid, at: layout)
        if full {
            werase(std)
            if path == .direct { clearok(animplay_curscr(), true) }
        }
        if path == .curses { putCells(visible, at: layout, full: full, window: std) }
        drawStatus(status, window: std)
        wnoutrefresh(std)
        doupdate()
        if path == .direct {
            writeCells(visible, at: layout, full: full)   // records what it displayed in `shown`
        } else {
            shown.copy(from: visible)
        }
        shownLayout = layout
    }

    // MARK: - ncurses cells (palette modes)

    private func putCells(_ grid: CellGrid, at layout: RenderLayout, full: Bool, window: UnsafeMutablePointer<WINDOW>) {
        let w = grid.columns
        let sameSize = !full && shown.columns == w && shown.rows == grid.rows
        for r in 0..<grid.rows {
            let y = Int32(layout.row + r)
            if Int(y) >= screen.rows { break }
            for c in 0..<w {
                let i = r * w + c
                if sameSize && shown.sameCell(i, as: grid) { continue }
                let x = layout.column + c
                if x >= screen.columns { break }
                let f = Self.cursesColor(grid.foregrounds[i]), b = Self.cursesColor(grid.backgrounds[i])
                let glyph = wchar_t(bitPattern: grid.symbols.scalar(grid.glyphs[i]).value)
                // Pairs never run out: ColorSelection only takes this path when the pair table
                // holds every combination of the palette, so alloc_pair never recycles.
                let pair = alloc_pair(glyph == 0x20 ? b : f, b)
                _ = animplay_put_cell(window, y, Int32(x), glyph, max(pair, 0))
            }
        }
    }

    private static func cursesColor(_ c: UInt32) -> Int32 {
        c == CellColor.terminalDefault ? -1 : Int32(c)
    }

    // MARK: - Direct cells (24-bit)

    private func writeCells(_ grid: CellGrid, at layout: RenderLayout, full: Bool) {
        writer.removeAll()
        if full { shown.resize(columns: 0, rows: 0) }   // nothing of the image is on screen
        writer.update(screen: shown, to: grid, row: layout.row, column: layout.column,
                      screenColumns: screen.columns)
        let body = writer.bytes
        guard !body.isEmpty else { return }
        var out = screen.saveCursor
        out.append(contentsOf: body)
        out.append(contentsOf: screen.restoreCursor)
        TerminalOutput.write(screen.outputFD, out)
    }

    /// The grid itself when it fits on screen (the usual case), else the part that does.
    private let clipBuffer = CellGrid()
    private func clipped(_ grid: CellGrid, at layout: RenderLayout) -> CellGrid {
        let cols = min(grid.columns, screen.columns - layout.column)
        let rows = min(grid.rows, screen.rows - layout.row)
        if cols == grid.columns && rows == grid.rows { return grid }
        clipBuffer.symbols = grid.symbols
        clipBuffer.resize(columns: max(0, cols), rows: max(0, rows))
        for r in 0..<max(0, rows) {
            for c in 0..<max(0, cols) {
                let s = r * grid.columns + c, d = r * cols + c
                clipBuffer.glyphs[d] = grid.glyphs[s]
                clipBuffer.foregrounds[d] = grid.foregrounds[s]
                clipBuffer.backgrounds[d] = grid.backgrounds[s]
            }
        }
        return clipBuffer
    }

    // MARK: - Status line

    private func drawStatus(_ status: String?, window: UnsafeMutablePointer<WINDOW>) {
        let y = Int32(screen.rows - 1)
        defer { statusShown = status != nil }
        guard let status, screen.rows > 0 else {
            // Hidden again without a re-layout: the image does not reach the bottom row.
            if statusShown { wmove(window, y, 0); wclrtoeol(window) }
            return
        }
        var line = Array(status.utf8.prefix(screen.columns))
        if line.count < screen.columns { line += [UInt8](repeating: 0x20, count: screen.columns - line.count) }
        _ = animplay_set_attr(window, statusReverse ? 1 : 0, statusPair)
        line.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) {
                _ = mvwaddnstr(window, y, 0, $0.baseAddress, Int32(min(buf.count, screen.columns - 1)))
            }
        }
        _ = animplay_set_attr(window, 0, 0)
    }
}
