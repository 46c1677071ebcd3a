/// Encodes cells as ANSI/ECMA-48 bytes: cursor movement (CUP, CUF), SGR colours and the
/// UTF-8 half-block glyphs. Used where the program writes cells itself rather than through
/// ncurses: truecolor on a terminal whose terminfo entry cannot express it, and the final
/// frame printed into the normal screen on exit.
///
/// Byte economy, the whole point on a slow link:
/// - `update` writes only the cells that differ from what is on screen;
/// - gaps on a row are skipped with CUF, other jumps use CUP;
/// - SGR carries only the attributes that change, fg and bg in one sequence;
/// - a cell may be drawn in whichever equivalent form needs fewer changes: ▀ fg=A bg=B is
///   ▄ fg=B bg=A, and a one-colour cell is a space on that background or █ in that foreground.
///
/// The writer assumes attributes are at their defaults when it starts and leaves them so.
public struct SGRCellWriter {
    public let mode: ColorMode
    public private(set) var bytes: [UInt8] = []
    private var fg = CellColor.terminalDefault
    private var bg = CellColor.terminalDefault
    private var cursorRow = -1, cursorColumn = -1

    public init(mode: ColorMode) {
        self.mode = mode
        bytes.reserveCapacity(1 << 16)
    }

    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Writes the cells of `next` that differ from `previous` (all of them when `previous` is
    /// nil or has other dimensions), with the grid's top-left cell at screen (`row`, `column`),
    /// 0-based. `screenColumns` is the terminal width (writing the last column leaves the cursor
    /// in a pending-wrap state, so the next cell is positioned absolutely).
    public mutating func update(from previous: CellGrid?, to next: CellGrid, row: Int, column: Int,
                                screenColumns: Int) {
        let prev = (previous.map { $0.columns == next.columns && $0.rows == next.rows } ?? false) ? previous : nil
        cursorRow = -1; cursorColumn = -1
        let w = next.columns
        for r in 0..<next.rows {
            for c in 0..<w {
                let i = r * w + c
                if let prev, prev.sameCell(i, as: next) { continue }
                moveTo(row: row + r, column: column + c)
                emitCell(next, i)
                cursorColumn += 1
                if cursorColumn >= screenColumns { cursorRow = -1 }
            }
        }
        resetAttributes()
    }

    /// Writes the whole grid as lines at the cursor, like `cat` of an image: each line ends
    /// with default attributes and a newline.
    public mutating func printLines(_ grid: CellGrid) {
        let w = grid.columns
        for r in 0..<grid.rows {
            for c in 0..<w { emitCell(grid, r * w + c) }
            resetAttributes()
            bytes.append(0x0A)
        }
    }

    // MARK: - Cells

    private mutating func emitCell(_ g: CellGrid, _ i: Int) {
        let f = g.foregrounds[i], b = g.backgrounds[i]
        switch CellGlyph(rawValue: g.glyphs[i]) ?? .space {
        case .space:
            if bg == b {
                bytes.append(0x20)
            } else if fg == b && b != CellColor.terminalDefault {
                bytes.append(contentsOf: Self.fullBlock)
            } else {
                setColors(fg: fg, bg: b)
                bytes.append(0x20)
            }
        case .upper:
            // ▀ fg=f bg=b, or ▄ fg=b bg=f when neither is the default colour.
            let costUpper = (fg == f ? 0 : 1) + (bg == b ? 0 : 1)
            let swappable = b != CellColor.terminalDefault
            let costLower = swappable ? (fg == b ? 0 : 1) + (bg == f ? 0 : 1) : 3
            if costLower < costUpper {
                setColors(fg: b, bg: f); bytes.append(contentsOf: Self.lowerHalf)
            } else {
                setColors(fg: f, bg: b); bytes.append(contentsOf: Self.upperHalf)
            }
        case .lower:
            setColors(fg: f, bg: b); bytes.append(contentsOf: Self.lowerHalf)
        }
    }

    static let upperHalf: [UInt8] = [0xE2, 0x96, 0x80]   // U+2580
    static let lowerHalf: [UInt8] = [0xE2, 0x96, 0x84]   // U+2584
    static let fullBlock: [UInt8] = [0xE2, 0x96, 0x88]   // U+2588

    // MARK: - Escape sequences

    private mutating func moveTo(row: Int, column: Int) {
        if row == cursorRow && column == cursorColumn { return }
        if row == cursorRow && column > cursorColumn {
            let gap = column - cursorColumn
            bytes.append(0x1B); bytes.append(0x5B)                 // ESC [
            if gap > 1 { appendDecimal(gap) }
            bytes.append(0x43)                                     // C
        } else {
            bytes.append(0x1B); bytes.append(0x5B)
            appendDecimal(row + 1); bytes.append(0x3B); appendDecimal(column + 1)
            bytes.append(0x48)                                     // H
        }
        cursorRow = row; cursorColumn = column
    }

    private mutating func setColors(fg newFg: UInt32, bg newBg: UInt32) {
        if newFg == fg && newBg == bg { return }
        bytes.append(0x1B); bytes.append(0x5B)
        if newFg == CellColor.terminalDefault && newBg == CellColor.terminalDefault {
            bytes.append(0x6D)                                     // ESC [ m: all defaults
            fg = newFg; bg = newBg
            return
        }
        var first = true
        if newFg != fg { appendColor(newFg, background: false); first = false }
        if newBg != bg {
            if !first { bytes.append(0x3B) }
            appendColor(newBg, background: true)
        }
        bytes.append(0x6D)
        fg = newFg; bg = newBg
    }

    private mutating func resetAttributes() {
        if fg != CellColor.terminalDefault || bg != CellColor.terminalDefault {
            bytes.append(0x1B); bytes.append(0x5B); bytes.append(0x6D)
            fg = CellColor.terminalDefault; bg = CellColor.terminalDefault
        }
    }

    /// One SGR parameter group: 39/49, 38;2;r;g;b, 38;5;n, or 30–37/90–97 (40–47/100–107).
    private mutating func appendColor(_ c: UInt32, background: Bool) {
        if c == CellColor.terminalDefault {
            bytes.append(0x33 + (background ? 1 : 0)); bytes.append(0x39)
            return
        }
        switch mode {
        case .truecolor:
            bytes.append(background ? 0x34 : 0x33); bytes.append(0x38)
            bytes.append(0x3B); bytes.append(0x32); bytes.append(0x3B)
            appendDecimal(Int(c >> 16 & 0xFF)); bytes.append(0x3B)
            appendDecimal(Int(c >> 8 & 0xFF)); bytes.append(0x3B)
            appendDecimal(Int(c & 0xFF))
        case .palette256:
            bytes.append(background ? 0x34 : 0x33); bytes.append(0x38)
            bytes.append(0x3B); bytes.append(0x35); bytes.append(0x3B)
            appendDecimal(Int(c & 0xFF))
        case .palette16:
            let n = Int(c & 0x0F)
            appendDecimal(n < 8 ? (background ? 40 : 30) + n : (background ? 100 : 90) + n - 8)
        }
    }

    private mutating func appendDecimal(_ v: Int) {
        if v >= 1000 { appendDecimal(v / 1000); appendDecimal3(v % 1000); return }
        if v >= 100 { bytes.append(UInt8(0x30 + v / 100)) }
        if v >= 10 { bytes.append(UInt8(0x30 + (v / 10) % 10)) }
        bytes.append(UInt8(0x30 + v % 10))
    }

    private mutating func appendDecimal3(_ v: Int) {
        bytes.append(UInt8(0x30 + v / 100)); bytes.append(UInt8(0x30 + (v / 10) % 10))
        bytes.append(UInt8(0x30 + v % 10))
    }
}
