/// A grid of equal cells over a sheet (`--sprite CxR`), row-major, with an optional margin
/// around the whole sheet and spacing between cells, both in pixels.
public struct SpriteGrid: Sendable, Equatable {
    /// Cells across.
    public var columns: Int
    /// Cells down.
    public var rows: Int
    /// Pixels around the whole sheet.
    public var margin: Int
    /// Pixels between cells.
    public var spacing: Int

    /// A grid of `columns`×`rows` cells.
    public init(columns: Int, rows: Int, margin: Int = 0, spacing: Int = 0) {
        self.columns = columns; self.rows = rows; self.margin = margin; self.spacing = spacing
    }

    /// Number of cells.
    package var cellCount: Int { columns * rows }

    /// The cell size on a `sheetWidth`×`sheetHeight` sheet: what the margins and spacing leave,
    /// divided evenly. A size that does not divide is an error naming the numbers.
    package func cellSize(sheetWidth: Int, sheetHeight: Int) throws(AnimatedError) -> (width: Int, height: Int) {
        try validate()
        return (try Self.side(sheetWidth, "width", columns, "columns", margin, spacing),
                try Self.side(sheetHeight, "height", rows, "rows", margin, spacing))
    }

    /// Every cell rect, row-major.
    package func cells(sheetWidth: Int, sheetHeight: Int) throws(AnimatedError) -> [FrameRect] {
        let (w, h) = try cellSize(sheetWidth: sheetWidth, sheetHeight: sheetHeight)
        var out: [FrameRect] = []
        out.reserveCapacity(cellCount)
        for r in 0..<rows {
            for c in 0..<columns {
                out.append(FrameRect(x: margin + c * (w + spacing), y: margin + r * (h + spacing), width: w, height: h))
            }
        }
        return out
    }

    /// Bounds that keep every product below overflow (2^16 cells per side, 2^20 px gutters).
    private func validate() throws(AnimatedError) {
        guard columns >= 1, rows >= 1 else { throw .invalid("sprite grid \(columns)x\(rows) has no cells") }
        guard columns <= 1 << 16, rows <= 1 << 16 else {
            throw .limitExceeded("sprite grid \(columns)x\(rows) has more than 65536 cells per side")
        }
        guard margin >= 0, spacing >= 0, margin <= 1 << 20, spacing <= 1 << 20 else {
            throw .invalid("sprite grid margin \(margin) and spacing \(spacing) must be 0 to 1048576 pixels")
        }
    }

    private static func side(_ total: Int, _ dimension: String, _ count: Int, _ unit: String,
                             _ margin: Int, _ spacing: Int) throws(AnimatedError) -> Int {
        let left = total - 2 * margin - (count - 1) * spacing
        var how = "sheet \(dimension) \(total)"
        if margin > 0 { how += " minus 2×\(margin) px margin" }
        if spacing > 0 && count > 1 { how += (margin > 0 ? " and " : " minus ") + "\(count - 1)×\(spacing) px spacing" }
        if how != "sheet \(dimension) \(total)" { how += " leaves \(left) px, which" }
        guard left >= count else {
            throw .invalid("sprite grid: \(how) is too small for \(count) \(unit)")
        }
        guard left % count == 0 else {
            throw .invalid("sprite grid: \(how) does not divide into \(count) \(unit) (\(left) / \(count) leaves \(left % count) px)")
        }
        return left / count
    }
}
