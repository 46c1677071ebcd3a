import AnimatedCore

/// How the canvas is sized into the cell box.
public enum FitMode: String, Sendable, CaseIterable {
    /// Keep the aspect ratio (font cells assumed 1:2, so a half-block pixel is square).
    case fit
    /// Fill the whole box.
    case stretch
}

/// Where a frame goes on screen: its pixel size and the cell rectangle it occupies.
///
/// A cell is `cell` pixels: one column wide and two pixels tall for half blocks (upper and lower
/// half), the terminal's cell size in real pixels for pixel outputs (kitty). Images that fit
/// at least twice are enlarged only by whole factors (pixel art stays sharp); larger images are
/// reduced to fit; the result is centred in the box.
public struct RenderLayout: Sendable, Equatable, CustomStringConvertible {
    /// Size of the image in pixels (two per cell vertically).
    public var size: RenderSize
    /// Top-left cell of the image inside the box (0-based).
    public var row: Int
    /// Left cell column of the image inside the box (0-based).
    public var column: Int
    /// Pixels per cell: 1×2 for half blocks.
    public var cell: RenderSize
    /// The whole factor the canvas is shown at (1: its own size); nil when it is reduced to
    /// fit or stretched.
    public var factor: Int?
    /// Cell rows covered: ⌈height / cell height⌉.
    public var rows: Int { (size.height + cell.height - 1) / max(1, cell.height) }
    /// Cell columns covered: ⌈width / cell width⌉.
    public var columns: Int { (size.width + cell.width - 1) / max(1, cell.width) }

    /// Half-block cells.
    public static let halfBlockCell = RenderSize(width: 1, height: 2)

    /// An image of `size` pixels with its top-left cell at `row`, `column`, in cells of `cell`
    /// pixels, shown at whole factor `factor` (nil: reduced or stretched).
    public init(size: RenderSize, row: Int, column: Int, cell: RenderSize = RenderLayout.halfBlockCell,
                factor: Int? = nil) {
        self.size = size; self.row = row; self.column = column; self.cell = cell; self.factor = factor
    }

    /// For messages.
    public var description: String { "\(size) at row \(row), column \(column)" }

    /// Lays out a `canvasWidth`×`canvasHeight` image in a box of `columns`×`rows` cells of
    /// `cell` pixels. `scale` asks for a whole enlargement factor; when it does not fit, the
    /// largest whole factor that does is used (`factor` says which), never a fraction: pixel art
    /// stays sharp. Only an image larger than the box is reduced.
    public static func compute(canvasWidth cw: Int, canvasHeight ch: Int, columns: Int, rows: Int,
                               fit: FitMode = .fit, scale: Int? = nil,
                               cell: RenderSize = RenderLayout.halfBlockCell) -> RenderLayout {
        let cols = max(1, columns), boxRows = max(1, rows)
        let cell = RenderSize(width: max(1, cell.width), height: max(1, cell.height))
        let bw = cols * cell.width, bh = cell.height * boxRows
        let cw = max(1, cw), ch = max(1, ch)
        var w: Int, h: Int
        var factor: Int?
        switch fit {
        case .stretch:
            w = bw; h = bh
        case .fit:
            let fits = min(bw / cw, bh / ch)        // 0: not even at its own size
            let k = max(1, min(scale ?? fits, max(1, fits)))
            w = cw * k; h = ch * k
            factor = k
            if w > bw || h > bh {
                factor = nil
                // Reduce, keeping the aspect ratio; the limiting side fills the box exactly.
                if bw * ch <= bh * cw {
                    w = bw; h = min(bh, max(1, (ch * bw * 2 + cw) / (2 * cw)))
                } else {
                    h = bh; w = min(bw, max(1, (cw * bh * 2 + ch) / (2 * ch)))
                }
            }
        }
        let l = RenderLayout(size: RenderSize(width: w, height: h), row: 0, column: 0, cell: cell)
        return RenderLayout(size: l.size, row: (boxRows - l.rows) / 2, column: (cols - l.columns) / 2,
                            cell: cell, factor: factor)
    }
}
