/// How the canvas is sized into the cell box.
public enum FitMode: String, Sendable, CaseIterable {
    /// Keep the aspect ratio (font cells assumed 1:2, so a half-block pixel is square).
    case fit
    /// Fill the whole box.
    case stretch
}

/// Where a frame goes on screen: its pixel size and the cell rectangle it occupies.
///
/// A cell is one column wide and two pixels tall (upper and lower half block). Images that fit
/// at least twice are enlarged only by whole factors (pixel art stays sharp); larger images are
/// reduced to fit; the result is centred in the box.
public struct RenderLayout: Sendable, Equatable, CustomStringConvertible {
    /// Size of the image in pixels (two per cell vertically).
    public var size: RenderSize
    /// Top-left cell of the image inside the box (0-based).
    public var row: Int
    /// Left cell column of the image inside the box (0-based).
    public var column: Int
    /// Cell rows covered: ⌈height / 2⌉.
    public var rows: Int { (size.height + 1) / 2 }

    /// An image of `size` pixels with its top-left cell at `row`, `column`.
    public init(size: RenderSize, row: Int, column: Int) {
        self.size = size; self.row = row; self.column = column
    }

    /// For messages.
    public var description: String { "\(size) at row \(row), column \(column)" }

    /// Lays out a `canvasWidth`×`canvasHeight` image in a box of `columns`×`rows` cells.
    /// `scale` forces a whole enlargement factor (still reduced if it does not fit).
    public static func compute(canvasWidth cw: Int, canvasHeight ch: Int, columns: Int, rows: Int,
                               fit: FitMode = .fit, scale: Int? = nil) -> RenderLayout {
        let cols = max(1, columns), boxRows = max(1, rows)
        let bw = cols, bh = 2 * boxRows
        let cw = max(1, cw), ch = max(1, ch)
        var w: Int, h: Int
        switch fit {
        case .stretch:
            w = bw; h = bh
        case .fit:
            let k = scale ?? max(1, min(bw / cw, bh / ch))
            w = cw * max(1, k); h = ch * max(1, k)
            if w > bw || h > bh {
                // Reduce, keeping the aspect ratio; the limiting side fills the box exactly.
                if bw * ch <= bh * cw {
                    w = bw; h = min(bh, max(1, (ch * bw * 2 + cw) / (2 * cw)))
                } else {
                    h = bh; w = min(bw, max(1, (cw * bh * 2 + ch) / (2 * ch)))
                }
            }
        }
        let cellRows = (h + 1) / 2
        return RenderLayout(size: RenderSize(width: w, height: h),
                            row: (boxRows - cellRows) / 2, column: (cols - w) / 2)
    }
}
