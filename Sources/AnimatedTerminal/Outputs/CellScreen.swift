import AnimatedCore

/// The text side of the screen, which every output draws through: the status line, clearing on
/// a new layout, and (for the cell output) the cells themselves. ncurses in the CLI
/// (`PlaybackView`); `SGRCellScreen` writes straight to a `TerminalSink`.
public protocol CellScreen: AnyObject {
    /// Screen height in cells.
    var rows: Int { get }
    /// Screen width in cells.
    var columns: Int { get }
    /// Shows `grid` at `layout` (cells from the screen's top-left; an empty grid for pixel
    /// outputs) and the status line on the bottom row when `status` is non-nil. A layout
    /// other than the last one clears the screen first.
    func present(_ grid: CellGrid, at layout: RenderLayout, status: String?)
    /// The terminal's contents are unknown (resize, resume): the next `present` redraws all.
    func invalidate()
}

/// A `CellScreen` without curses: cells as SGR (only the changed ones), the status line in
/// reverse video, on a `TerminalSink`. What a library user plays into; the tests' screen.
public final class SGRCellScreen: CellScreen {
    /// Where the screen writes.
    public let sink: any TerminalSink
    /// Screen height in cells.
    public private(set) var rows: Int
    /// Screen width in cells.
    public private(set) var columns: Int
    private var writer: SGRCellWriter
    private let shown = CellGrid()
    private var shownLayout: RenderLayout?

    /// A screen of `rows`×`columns` cells on `sink`, its colours written in `mode`.
    public init(sink: any TerminalSink, rows: Int, columns: Int, mode: ColorMode) {
        self.sink = sink; self.rows = rows; self.columns = columns
        writer = SGRCellWriter(mode: mode)
    }

    /// A new screen size (after SIGWINCH): everything is drawn again.
    public func resize(rows: Int, columns: Int) {
        self.rows = rows; self.columns = columns
        shownLayout = nil
    }

    public func invalidate() { shownLayout = nil }

    public func present(_ grid: CellGrid, at layout: RenderLayout, status: String?) {
        var out: [UInt8] = []
        if shownLayout != layout {
            out += Array("\u{1B}[H\u{1B}[2J".utf8)
            shown.resize(columns: 0, rows: 0)
            shownLayout = layout
        }
        writer.removeAll()
        writer.update(screen: shown, to: grid, row: layout.row, column: layout.column, screenColumns: columns)
        out += writer.bytes
        if let status, rows > 0 {
            let text = String(decoding: status.utf8.filter { $0 >= 0x20 && $0 != 0x7F }.prefix(max(0, columns - 1)),
                              as: UTF8.self)
            out += Array("\u{1B}[\(rows);1H\u{1B}[7m\(text)\u{1B}[K\u{1B}[m".utf8)
        }
        if !out.isEmpty { sink.write(out) }
    }
}
