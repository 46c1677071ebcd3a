import AnimatedCore

/// How the canvas is sized into the cell box.
public enum FitMode: String, Sendable, CaseIterable {
    /// Keep the aspect ratio at the picture's own size: enlarged by whole factors only (pixel
    /// art stays sharp, as kitty's icat and browsers show it), reduced when larger than the box.
    case fit
    /// Fill the whole box (aspect not kept).
    case stretch
    /// The largest size that fits the box with the aspect ratio kept (as chafa and timg show
    /// pictures): enlarged by any factor, smoothly.
    case fill
}

/// Where a frame goes on screen: its pixel size and the cell rectangle it occupies.
///
/// A cell is `cell` pixels: one column wide and two pixels tall for half blocks (upper and lower
/// half), the terminal's cell size in real pixels for pixel outputs (kitty). Images that fit
/// at least twice are enlarged only by whole factors (pixel art stays sharp); larger images are
/// reduced to fit; the result is centred in the box.
///
/// Two sizes: `shown` is how large the picture appears (the cells it covers), `size` what the
/// player renders. They differ only where the terminal enlarges images itself (kitty's `c=`/`r=`,
/// iTerm2's width and height): there frames are rendered at the canvas's own size (no CPU for
/// scaling, bytes as for the small picture) and the terminal stretches them over `shown` (or
/// shrinks them, down to half size).
public struct RenderLayout: Sendable, Equatable, CustomStringConvertible {
    /// Size of the frames the player renders, in pixels (two per cell vertically for half blocks).
    public var size: RenderSize
    /// Size of the picture on screen in pixels: `size`, or larger when the terminal scales.
    public var shown: RenderSize
    /// Top-left cell of the image inside the box (0-based).
    public var row: Int
    /// Left cell column of the image inside the box (0-based).
    public var column: Int
    /// Pixels per cell: 1×2 for half blocks.
    public var cell: RenderSize
    /// The whole factor the canvas is shown at (1: its own size), in logical pixels (see
    /// `density`); nil when it is reduced, filled or stretched.
    package var factor: Int?
    /// Cell rows covered: ⌈shown height / cell height⌉.
    public var rows: Int { (shown.height + cell.height - 1) / max(1, cell.height) }
    /// Cell columns covered: ⌈shown width / cell width⌉.
    public var columns: Int { (shown.width + cell.width - 1) / max(1, cell.width) }
    /// True when the terminal enlarges the rendered frames to `shown`.
    public var terminalScales: Bool { shown != size }

    /// Half-block cells.
    public static let halfBlockCell = RenderSize(width: 1, height: 2)

    /// An image of `size` pixels with its top-left cell at `row`, `column`, in cells of `cell`
    /// pixels, shown at whole factor `factor` (nil: reduced or stretched), appearing `shown`
    /// pixels large (default: `size`).
    package init(size: RenderSize, row: Int, column: Int, cell: RenderSize = RenderLayout.halfBlockCell,
                factor: Int? = nil, shown: RenderSize? = nil) {
        self.size = size; self.shown = shown ?? size
        self.row = row; self.column = column; self.cell = cell; self.factor = factor
    }

    /// For messages.
    public var description: String {
        shown == size ? "\(size) at row \(row), column \(column)" : "\(size) shown at \(shown) at row \(row), column \(column)"
    }

    /// Device pixels per logical pixel for a terminal with cells of `cell` pixels: 2 for cells at
    /// least 32 pixels tall (a HiDPI screen: a 10×20-pixel font at 2×), else 1. A picture's "own
    /// size" is counted in logical pixels, as browsers do, so that it is as large on a 2× screen
    /// as on a 1× one. Half-block cells have density 1.
    package static func density(cell: RenderSize) -> Int { cell.height >= 32 ? 2 : 1 }

    /// The most pixels a laid-out picture has, whatever the box: 2^25, which an 8K UHD
    /// screen's 33.2 million fits (and the default decoding limit, `--max-pixels`).
    public static let mostPixels = 1 << 25
    /// The widest or tallest box considered, in cells or pixels (what a window size can say).
    public static let mostSide = 1 << 16

    /// The largest `w`×`h` with the aspect ratio of `cw`×`ch` that fits in `bw`×`bh` (the
    /// limiting side fills the box exactly, the other is rounded to the nearest pixel), at least 1×1.
    package static func fitting(_ cw: Int, _ ch: Int, into bw: Int, _ bh: Int) -> RenderSize {
        let cw = max(1, cw), ch = max(1, ch), bw = max(1, bw), bh = max(1, bh)
        if bw * ch <= bh * cw {
            return RenderSize(width: bw, height: min(bh, max(1, (ch * bw * 2 + cw) / (2 * cw))))
        }
        return RenderSize(width: min(bw, max(1, (cw * bh * 2 + ch) / (2 * ch))), height: bh)
    }

    /// Lays out a `canvasWidth`×`canvasHeight` image in a box of `columns`×`rows` cells of
    /// `cell` pixels.
    /// - `fit`: whole factors only (`scale` asks for one; when it does not fit, the largest whole
    ///   factor that does is used, `factor` says which), counted in logical pixels (`density`);
    ///   only an image larger than the box is reduced. `fill`: the largest size that fits, aspect
    ///   kept. `stretch`: the whole box.
    /// - `terminalScales`: the output can have the terminal scale frames (kitty, iTerm2). Then
    ///   an enlargement that is not by a whole factor (fill, HiDPI) or a reduction to no less
    ///   than half is rendered at the canvas's own size and `shown` at the size on screen (no
    ///   CPU for scaling: a 1280×720 video shown at 1200×675 cost a third of animplay's CPU in
    ///   kitty when reduced here); whole factors stay replicated here (the terminal's filter
    ///   would blur pixel art), larger reductions are area averages here.
    /// - `maxPixels`: the largest picture the terminal shows (xterm drops larger sixel images
    ///   whole): the box is reduced to it first (`stretch`: with the box's aspect ratio), so
    ///   every mode fits inside it, whole factors included; the picture stays centred in the
    ///   whole box. A limit the box already fits in changes nothing.
    /// - Boxes come from outside (`--size`, COLUMNS and LINES, fzf's preview size, the
    ///   terminal's window and cell sizes), so they are bounded first: at most `mostSide`
    ///   cells or pixels a side, so that no product here overflows, and the picture at most
    ///   `mostPixels` (reduced, aspect kept, when the box would make it larger). A preview run
    ///   with COLUMNS=99999999 asked for 40 PB, FZF_PREVIEW_COLUMNS=9223372036854775807 trapped.
    public static func compute(canvasWidth cw: Int, canvasHeight ch: Int, columns: Int, rows: Int,
                               fit: FitMode = .fit, scale: Int? = nil,
                               cell: RenderSize = RenderLayout.halfBlockCell, density: Int? = nil,
                               terminalScales: Bool = false, maxPixels: RenderSize? = nil) -> RenderLayout {
        let side = mostSide
        let cols = min(max(1, columns), side), boxRows = min(max(1, rows), side)
        let cell = RenderSize(width: min(max(1, cell.width), side), height: min(max(1, cell.height), side))
        var bw = min(cols * cell.width, side), bh = min(cell.height * boxRows, side)
        let cw = max(1, cw), ch = max(1, ch)
        let limit = maxPixels.map { RenderSize(width: max(1, $0.width), height: max(1, $0.height)) }
        if let m = limit, bw > m.width || bh > m.height {
            if fit == .stretch {
                let box = fitting(bw, bh, into: m.width, m.height)
                bw = box.width; bh = box.height
            } else {
                bw = min(bw, m.width); bh = min(bh, m.height)
            }
        }
        let d = max(1, density ?? Self.density(cell: cell))
        var shown: RenderSize
        var factor: Int?
        switch fit {
        case .stretch:
            shown = RenderSize(width: bw, height: bh)
        case .fill:
            shown = fitting(cw, ch, into: bw, bh)
        case .fit:
            let fits = min(bw / (cw * d), bh / (ch * d))        // 0: not even at its own size
            let k = max(1, min(scale ?? fits, max(1, fits)))
            shown = RenderSize(width: cw * k * d, height: ch * k * d)
            factor = k
            if shown.width > bw || shown.height > bh {
                factor = nil
                shown = fitting(cw, ch, into: bw, bh)
            }
        }
        if shown.width * shown.height > mostPixels {
            let f = (Double(mostPixels) / Double(shown.width * shown.height)).squareRoot()
            shown = RenderSize(width: max(1, Int(Double(shown.width) * f)), height: max(1, Int(Double(shown.height) * f)))
            factor = nil
        }
        var size = shown
        // Enlarged by a fraction, stretched, or reduced at most by half: the terminal can do that
        // from the canvas itself (kitty samples bilinearly on its GPU, so down to half size every
        // canvas pixel still counts). Larger reductions stay area averages here.
        let whole = shown.width % cw == 0 && shown.height % ch == 0 && shown.width / cw == shown.height / ch
        let canvasFits = limit.map { cw <= $0.width && ch <= $0.height } ?? true
        if terminalScales && shown.width * 2 >= cw && shown.height * 2 >= ch && !whole && canvasFits {
            size = RenderSize(width: cw, height: ch)
        }
        let l = RenderLayout(size: size, row: 0, column: 0, cell: cell, shown: shown)
        return RenderLayout(size: size, row: (boxRows - l.rows) / 2, column: (cols - l.columns) / 2,
                            cell: cell, factor: factor, shown: shown)
    }
}
