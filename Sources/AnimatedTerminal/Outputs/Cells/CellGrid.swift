import AnimatedCore

/// What a cell shows: the two pixels of a cell as one glyph plus foreground/background colours.
package enum CellGlyph: UInt8, Sendable {
    /// ' ': both halves are the background colour.
    case space = 0
    /// '▀' U+2580: upper half foreground, lower half background.
    case upper = 1
    /// '▄' U+2584: lower half foreground, upper half background.
    case lower = 2
}

/// A rectangle of cells in canonical form (see `CellRenderer` and `set`), reused from frame
/// to frame. Colours are `CellColor` values; a glyph is a coverage mask of the grid's symbol
/// set (for half blocks, a `CellGlyph` raw value).
public final class CellGrid {
    /// What the glyph masks mean.
    public var symbols = SymbolSet.half
    /// Width in cells.
    public private(set) var columns = 0
    /// Height in cells.
    public private(set) var rows = 0
    package private(set) var glyphs: UnsafeMutablePointer<UInt8>
    package private(set) var foregrounds: UnsafeMutablePointer<UInt32>
    package private(set) var backgrounds: UnsafeMutablePointer<UInt32>
    private var capacity = 0

    /// A blank grid (terminal-default spaces).
    public init(columns: Int = 0, rows: Int = 0) {
        glyphs = .allocate(capacity: 1); foregrounds = .allocate(capacity: 1); backgrounds = .allocate(capacity: 1)
        capacity = 1
        resize(columns: columns, rows: rows)
    }

    deinit { glyphs.deallocate(); foregrounds.deallocate(); backgrounds.deallocate() }

    /// Number of cells.
    public var count: Int { columns * rows }

    /// Changes the dimensions; contents become blank (terminal-default spaces).
    public func resize(columns: Int, rows: Int) {
        let n = max(0, columns) * max(0, rows)
        if n > capacity {
            glyphs.deallocate(); foregrounds.deallocate(); backgrounds.deallocate()
            glyphs = .allocate(capacity: n); foregrounds = .allocate(capacity: n); backgrounds = .allocate(capacity: n)
            capacity = n
        }
        self.columns = max(0, columns); self.rows = max(0, rows)
        glyphs.update(repeating: CellGlyph.space.rawValue, count: n)
        foregrounds.update(repeating: CellColor.terminalDefault, count: n)
        backgrounds.update(repeating: CellColor.terminalDefault, count: n)
    }

    /// True when cell `i` of both grids looks the same.
    @inline(__always)
    public func sameCell(_ i: Int, as other: CellGrid) -> Bool {
        glyphs[i] == other.glyphs[i] && foregrounds[i] == other.foregrounds[i]
            && backgrounds[i] == other.backgrounds[i]
    }

    /// Stores cell `i` in canonical form, so that cells that look the same compare equal:
    /// - one colour: mask 0 (a space) with foreground = background = that colour;
    /// - the terminal's default colour, which only a background can show, is the background;
    /// - otherwise bit 0 (the top-left sub-pixel) is in the foreground.
    @inline(__always)
    package func set(_ i: Int, mask: UInt8, foreground: UInt32, background: UInt32) {
        let full = symbols.fullMask
        var m = mask & full, f = foreground, b = background
        if m == full { m = 0; b = f }
        if m == 0 || f == b {
            glyphs[i] = 0; foregrounds[i] = b; backgrounds[i] = b
            return
        }
        if f == CellColor.terminalDefault {
            m = ~m & full; f = b; b = CellColor.terminalDefault
        } else if b != CellColor.terminalDefault && m & 1 == 0 {
            m = ~m & full; swap(&f, &b)
        }
        glyphs[i] = m; foregrounds[i] = f; backgrounds[i] = b
    }

    /// The colour cell `i` shows at sub-pixel `bit` (see `SymbolSet`).
    @inline(__always)
    package func color(_ i: Int, bit: Int) -> UInt32 {
        glyphs[i] >> bit & 1 != 0 ? foregrounds[i] : backgrounds[i]
    }

    /// Makes this grid a copy of `other` (symbols, size and cells).
    public func copy(from other: CellGrid) {
        symbols = other.symbols
        resize(columns: other.columns, rows: other.rows)
        glyphs.update(from: other.glyphs, count: count)
        foregrounds.update(from: other.foregrounds, count: count)
        backgrounds.update(from: other.backgrounds, count: count)
    }
}

extension CellGrid {
    /// Cell `index` (row-major, `row * columns + column`): its glyph (a `CellGlyph` raw value)
    /// and its colours (`CellColor` values).
    public func cell(_ index: Int) -> (glyph: UInt8, foreground: UInt32, background: UInt32) {
        precondition(index >= 0 && index < count, "cell \(index) outside a grid of \(count)")
        return (glyphs[index], foregrounds[index], backgrounds[index])
    }
}
