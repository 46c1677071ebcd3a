import AnimatedCore

/// Encodes cells as ANSI/ECMA-48 bytes: cursor movement (CUP, CUF), SGR colours and the
/// UTF-8 block glyphs of the grid's symbol set. Used where the program writes cells itself rather than through
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
/// - in truecolor, colours closer than `tolerance` in OKLab count as equal, both to decide
///   whether a cell changed and whether the current SGR colour can be reused. The default,
///   0.02, is one just-noticeable difference (the JND of CSS Color 4's gamut mapping): moving
///   gradients and noise then cost about a third fewer bytes with no visible difference. What
///   is displayed is tracked exactly, so the error never accumulates beyond the tolerance.
///
/// The writer assumes attributes are at their defaults when it starts and leaves them so.
package struct SGRCellWriter {
    /// The colours written.
    package let mode: ColorMode
    /// What has been written so far (UTF-8 text and escape sequences).
    package private(set) var bytes: [UInt8] = []
    private var fg = CellColor.terminalDefault
    private var bg = CellColor.terminalDefault
    private var cursorRow = -1, cursorColumn = -1
    private let toleranceSquared: Float
    private let lab: OKLabCache?

    /// One just-noticeable difference in OKLab (ΔE_OK).
    package static let defaultTolerance: Float = 0.02

    /// `tolerance` applies to truecolor only (palette indices are compared exactly).
    package init(mode: ColorMode, tolerance: Float = 0) {
        self.mode = mode
        bytes.reserveCapacity(1 << 16)
        let t = mode == .truecolor ? max(0, tolerance) : 0
        toleranceSquared = t * t
        lab = t > 0 ? OKLabCache() : nil
    }

    /// Equal, or (truecolor with a tolerance) perceptually indistinguishable.
    @inline(__always)
    private func same(_ a: UInt32, _ b: UInt32) -> Bool {
        if a == b { return true }
        guard let lab, a != CellColor.terminalDefault, b != CellColor.terminalDefault else { return false }
        return lab.distanceSquared(a, b) <= toleranceSquared
    }

    /// Empties `bytes`, keeping its capacity.
    package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Writes the cells of `next` that differ from what `screen` says is displayed, with the
    /// grid's top-left cell at screen (`row`, `column`), 0-based, and records in `screen` what
    /// is now displayed. A `screen` of other dimensions is treated as unknown (everything is
    /// written). `screenColumns` is the terminal width (writing the last column leaves the
    /// cursor in a pending-wrap state, so the next cell is positioned absolutely).
    package mutating func update(screen: CellGrid, to next: CellGrid, row: Int, column: Int,
                                screenColumns: Int) {
        let known = screen.columns == next.columns && screen.rows == next.rows && screen.symbols == next.symbols
        if !known {
            screen.symbols = next.symbols
            screen.resize(columns: next.columns, rows: next.rows)
        }
        cursorRow = -1; cursorColumn = -1
        let w = next.columns
        for r in 0..<next.rows {
            for c in 0..<w {
                let i = r * w + c
                if known && looksSame(screen, i, next, i) { continue }
                moveTo(row: row + r, column: column + c)
                emitCell(next, i, record: screen)
                cursorColumn += 1
                if cursorColumn >= screenColumns { cursorRow = -1 }
            }
        }
        resetAttributes()
    }

    /// Every sub-pixel of two cells (of the same symbol set) matches, within the tolerance.
    @inline(__always)
    private func looksSame(_ a: CellGrid, _ i: Int, _ b: CellGrid, _ j: Int) -> Bool {
        let ma = a.glyphs[i], mb = b.glyphs[j]
        if ma == mb {
            let full = a.symbols.fullMask
            return (ma == 0 || same(a.foregrounds[i], b.foregrounds[j]))
                && (ma == full || same(a.backgrounds[i], b.backgrounds[j]))
        }
        for k in 0..<a.symbols.count where !same(a.color(i, bit: k), b.color(j, bit: k)) { return false }
        return true
    }

    /// Writes the whole grid as lines at the cursor, like `cat` of an image: each line ends
    /// with default attributes and a newline.
    package mutating func printLines(_ grid: CellGrid, indent: Int = 0) {
        let w = grid.columns
        for r in 0..<grid.rows {
            if indent > 0 { bytes += repeatElement(0x20, count: indent) }
            for c in 0..<w { emitCell(grid, r * w + c, record: nil) }
            resetAttributes()
            bytes.append(0x0A)
        }
    }

    // MARK: - Cells

    /// Draws cell `i` of `g` in the cheapest equivalent form given the current SGR state;
    /// stores what is displayed (canonical form) into `record` at the same index.
    ///
    /// A cell is a coverage mask with a colour on each side; the mask's complement with the
    /// colours swapped looks the same, and a one-colour cell is a space on that background
    /// or █ in that foreground.
    private mutating func emitCell(_ g: CellGrid, _ i: Int, record: CellGrid?) {
        let symbols = g.symbols, full = symbols.fullMask
        var mask = g.glyphs[i] & full
        // The colours of the mask's sub-pixels (f) and of the others (b).
        var f = g.foregrounds[i], b = g.backgrounds[i]
        if mask == 0 { f = b } else if mask == full { mask = 0; b = f }
        let D = CellColor.terminalDefault
        var shownMask = mask, shownF = f, shownB = b
        if mask == 0 || f == b || same(f, b) {
            // One colour: a space on the background, or a full block in the foreground (a
            // reused colour must be close to both sides).
            if bg == b && bg == f || bg != D && same(bg, f) && same(bg, b) {
                bytes.append(0x20); shownMask = 0; shownF = bg; shownB = bg
            } else if fg != D && same(fg, f) && same(fg, b) {
                bytes.append(contentsOf: Self.fullBlock); shownMask = 0; shownF = fg; shownB = fg
            } else {
                setColors(fg: fg, bg: b)
                bytes.append(0x20); shownMask = 0; shownF = b; shownB = b
            }
        } else {
            if f == D { mask = ~mask & full; swap(&f, &b) }   // only a background shows the default
            // mask in fg=f bg=b, or its complement in fg=b bg=f when neither is the default colour.
            let costDirect = (same(fg, f) ? 0 : 1) + (same(bg, b) ? 0 : 1)
            let costSwapped = b != D ? (same(fg, b) ? 0 : 1) + (same(bg, f) ? 0 : 1) : 3
            if costSwapped < costDirect {
                mask = ~mask & full; swap(&f, &b)
            }
            setColors(fg: same(fg, f) ? fg : f, bg: same(bg, b) ? bg : b)
            bytes.append(contentsOf: symbols.utf8(mask))
            shownMask = mask; shownF = fg; shownB = bg
        }
        record?.set(i, mask: shownMask, foreground: shownF, background: shownB)
    }

    /// Upper and lower colours of a half-block cell.
    static func halves(_ g: CellGrid, _ i: Int) -> (UInt32, UInt32) { (g.color(i, bit: 0), g.color(i, bit: 1)) }

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
