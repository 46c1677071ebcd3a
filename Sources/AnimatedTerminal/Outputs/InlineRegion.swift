import AnimatedCore

/// The rows below the prompt that a playback in the normal screen (`--inline`) draws in, as the
/// `TerminalSink` its output writes to.
///
/// Nothing depends on where the terminal put these rows (no cursor position report): they
/// are reserved by printing line feeds (the terminal scrolls the prompt up when the cursor is
/// near the bottom), the cursor stays on the line below them, and an output reaches cell
/// (row, column) of the region by relative moves from there (`cursorTo`), between a save and a
/// restore of the cursor, so the cursor is below the picture whatever the image left it at.
///
/// A sixel or iTerm2 image leaves the cursor below itself, and one that reached the screen's
/// last row would scroll the screen (shifting every later frame): the caller reserves a
/// `spare` row between the picture and the line the cursor waits on, so a frame never ends
/// on the bottom row. Sixel scrolling mode (DECSDM) stays the terminal's default, images at
/// the cursor: with it reset, xterm draws every image at the screen's top-left.
public final class InlineRegion: TerminalSink {
    /// The terminal the region is on.
    public let base: any TerminalSink
    /// Rows reserved (the picture's and the spare ones); the cursor is on the line below them.
    public private(set) var rows = 0
    public let saveCursor = Array("\u{1B}7".utf8)
    public let restoreCursor = Array("\u{1B}8".utf8)

    /// A region of no rows yet, below the cursor on `base`.
    public init(base: any TerminalSink) { self.base = base }

    public func write(_ bytes: [UInt8]) { base.write(bytes) }
    public var isWritable: Bool { base.isWritable }
    public var windowCellSize: RenderSize? { base.windowCellSize }

    /// Reserves `rows` rows from the cursor's line down (at least one); the cursor ends on the
    /// line below them, in the first column.
    public func reserve(_ rows: Int) {
        self.rows = max(1, rows)
        base.write(Array(repeating: Array("\r\n".utf8), count: self.rows).flatMap { $0 })
    }

    /// Erases the reserved rows and everything below them; the cursor goes back to where they
    /// started (the region is then empty until the next `reserve`).
    public func wipe() {
        guard rows > 0 else { return }
        base.write(Array("\u{1B}[\(rows)A\r\u{1B}[J".utf8))
        rows = 0
    }

    /// Up from the line below the region to its row `row`, then right to `column`.
    public func cursorTo(row: Int, column: Int) -> [UInt8] {
        let up = max(1, rows - max(0, row))
        return Array(("\u{1B}[\(up)A\r" + (column > 0 ? "\u{1B}[\(column)C" : "")).utf8)
    }
}
