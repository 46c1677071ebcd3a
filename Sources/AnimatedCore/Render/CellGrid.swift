/// What a cell shows: the two pixels of a cell as one glyph plus foreground/background colours.
public enum CellGlyph: UInt8, Sendable {
    /// ' ': both halves are the background colour.
    case space = 0
    /// '▀' U+2580: upper half foreground, lower half background.
    case upper = 1
    /// '▄' U+2584: lower half foreground, upper half background.
    case lower = 2
}

/// A rectangle of cells in canonical form (see `CellRenderer`), reused from frame to frame.
/// Colours are `CellColor` values.
public final class CellGrid {
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

    /// Makes this grid a copy of `other` (size and cells).
    public func copy(from other: CellGrid) {
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
