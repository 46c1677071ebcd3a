import AnimatedCore

/// What a text terminal shows after some output: a grid of cells, each a character with the
/// foreground and background colour it was drawn in. Understands what image printers emit
/// (animplay, chafa, timg): UTF-8 text, CR, LF, BS, DECSC/DECRC, CUP, CUF/CUB/CUU/CUD, CHA, SGR 0/7/27,
/// 39/49, 30–37/40–47/90–97/100–107, 38;5/48;5 and 38;2/48;2; other escape sequences are
/// skipped and counted. Colours are resolved to 0xRRGGBB as the terminal would paint them
/// (defaults and the xterm palette), so the picture-quality measurement can rasterise it.
package struct TerminalScreen {
    /// Width in cells.
    package let columns: Int
    /// Height in cells.
    package let rows: Int
    /// Row-major cells.
    package private(set) var cells: [Cell]
    /// Escape sequences that were skipped (not understood).
    package private(set) var skippedSequences = 0
    /// The smallest rectangle holding every character written (nil: none), as cell ranges.
    package private(set) var written: (rows: ClosedRange<Int>, columns: ClosedRange<Int>)?

    /// One character cell as painted.
    package struct Cell: Equatable, Sendable {
        /// The character.
        package var scalar: Unicode.Scalar
        /// Its foreground colour, 0xRRGGBB.
        package var foreground: UInt32
        /// Its background colour, 0xRRGGBB.
        package var background: UInt32
    }

    private let defaultForeground: UInt32, defaultBackground: UInt32
    private var row = 0, column = 0
    private var fg: UInt32? = nil, bg: UInt32? = nil   // nil: the default
    private var reverse = false
    private var saved: (Int, Int, UInt32?, UInt32?, Bool)?

    /// A blank screen whose default colours are `foreground` and `background` (0xRRGGBB).
    package init(columns: Int, rows: Int, foreground: UInt32 = 0xE5E5E5, background: UInt32 = 0x000000) {
        self.columns = columns; self.rows = rows
        defaultForeground = foreground; defaultBackground = background
        cells = Array(repeating: Cell(scalar: " ", foreground: foreground, background: background),
                      count: columns * rows)
    }

    /// Interprets terminal output.
    package mutating func feed(_ bytes: [UInt8]) {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case 0x1B:
                i = escape(bytes, i)
            case 0x0A: row += 1; i += 1
            case 0x0D: column = 0; i += 1
            case 0x08: column = max(0, column - 1); i += 1
            case 0x00..<0x20, 0x7F: i += 1
            default:
                // One UTF-8 sequence (malformed bytes: one replacement character each).
                let n = b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
                var value: UInt32 = n == 1 ? UInt32(b) : UInt32(b) & (0xFF >> UInt32(n + 1))
                var ok = i + n <= bytes.count && (n > 1 || b < 0x80)
                if ok {
                    for k in 1..<n {
                        let c = bytes[i + k]
                        if c & 0xC0 != 0x80 { ok = false; break }
                        value = value << 6 | UInt32(c & 0x3F)
                    }
                }
                put(ok ? Unicode.Scalar(value) ?? "\u{FFFD}" : "\u{FFFD}")
                i += ok ? n : 1
            }
        }
    }

    /// The cells of a rectangle as a screen of their own.
    package func cropped(rows: ClosedRange<Int>, columns: ClosedRange<Int>) -> TerminalScreen {
        var out = TerminalScreen(columns: columns.count, rows: rows.count, foreground: defaultForeground,
                                 background: defaultBackground)
        for r in rows {
            for c in columns {
                out.cells[(r - rows.lowerBound) * columns.count + c - columns.lowerBound] = cells[r * self.columns + c]
            }
        }
        out.written = (0...(rows.count - 1), 0...(columns.count - 1))
        return out
    }

    private mutating func put(_ s: Unicode.Scalar) {
        if column >= columns { column = 0; row += 1 }   // auto-wrap
        if row >= 0 && row < rows {
            var f = fg ?? defaultForeground, b = bg ?? defaultBackground
            if reverse { swap(&f, &b) }
            cells[row * columns + column] = Cell(scalar: s, foreground: f, background: b)
            if let w = written {
                written = (min(w.rows.lowerBound, row)...max(w.rows.upperBound, row),
                           min(w.columns.lowerBound, column)...max(w.columns.upperBound, column))
            } else {
                written = (row...row, column...column)
            }
        }
        column += 1
    }

    /// Handles the escape sequence at `i`; returns the index after it.
    private mutating func escape(_ bytes: [UInt8], _ start: Int) -> Int {
        var i = start + 1
        guard i < bytes.count else { return i }
        if bytes[i] == 0x37 { saved = (row, column, fg, bg, reverse); return i + 1 }      // DECSC
        if bytes[i] == 0x38 {                                                                // DECRC
            if let s = saved { (row, column, fg, bg, reverse) = s }
            return i + 1
        }
        if bytes[i] != 0x5B {   // not CSI: ESC and one more byte (OSC and DCS up to ST/BEL)
            if bytes[i] == 0x5D || bytes[i] == 0x50 || bytes[i] == 0x5F {
                while i < bytes.count && bytes[i] != 0x07 && !(bytes[i] == 0x5C && bytes[i - 1] == 0x1B) { i += 1 }
            }
            skippedSequences += 1
            return i + 1
        }
        i += 1
        var params: [Int] = [], current: Int? = nil, privateMarker = false
        while i < bytes.count {
            let c = bytes[i]
            if c >= 0x30 && c <= 0x39 { current = (current ?? 0) * 10 + Int(c - 0x30) }
            else if c == 0x3B || c == 0x3A { params.append(current ?? 0); current = nil }
            else if c >= 0x3C && c <= 0x3F { privateMarker = true }
            else if c >= 0x40 && c <= 0x7E { break }
            i += 1
        }
        guard i < bytes.count else { return i }
        if let current { params.append(current) }
        let final = bytes[i]
        let first = params.first ?? 0
        if privateMarker { skippedSequences += 1; return i + 1 }
        switch final {
        case 0x48, 0x66: row = max(1, first) - 1; column = max(1, params.count > 1 ? params[1] : 1) - 1   // CUP, HVP
        case 0x43: column += max(1, first)                      // CUF
        case 0x44: column = max(0, column - max(1, first))      // CUB
        case 0x41: row = max(0, row - max(1, first))            // CUU
        case 0x42: row += max(1, first)                         // CUD
        case 0x47: column = max(1, first) - 1                   // CHA
        case 0x6D: sgr(params)
        default: skippedSequences += 1
        }
        return i + 1
    }

    private mutating func sgr(_ p: [Int]) {
        if p.isEmpty { fg = nil; bg = nil; reverse = false; return }
        var k = 0
        while k < p.count {
            let v = p[k]
            switch v {
            case 0: fg = nil; bg = nil; reverse = false
            case 7: reverse = true
            case 27: reverse = false
            case 39: fg = nil
            case 49: bg = nil
            case 30...37: fg = Self.palette(v - 30)
            case 40...47: bg = Self.palette(v - 40)
            case 90...97: fg = Self.palette(v - 82)
            case 100...107: bg = Self.palette(v - 92)
            case 38, 48:
                var c: UInt32? = nil
                if k + 2 < p.count && p[k + 1] == 5 { c = Self.palette(p[k + 2]); k += 2 }
                else if k + 4 < p.count && p[k + 1] == 2 {
                    c = UInt32(p[k + 2] & 0xFF) << 16 | UInt32(p[k + 3] & 0xFF) << 8 | UInt32(p[k + 4] & 0xFF); k += 4
                }
                if v == 38 { fg = c } else { bg = c }
            default: break   // bold, underline ...: no effect on block glyph colours here
            }
            k += 1
        }
    }

    static func palette(_ i: Int) -> UInt32 {
        let (r, g, b) = PaletteQuantizer.xtermRGB(max(0, min(255, i)))
        return UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
    }
}
