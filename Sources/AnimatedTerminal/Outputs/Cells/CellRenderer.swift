import AnimatedCore

/// Turns a scaled frame into half-block cells: cell (x, r) shows pixel (x, 2r) in its upper
/// half and (x, 2r+1) in its lower half (transparent when the frame has an odd height).
///
/// Cells come out in one canonical form, so equal-looking cells compare equal and the diff
/// writes only what changed:
/// - both halves the same colour: `space` with that background (foreground = background);
/// - upper half transparent to the terminal: `lower`, foreground = lower pixel;
/// - otherwise `upper`, foreground = upper pixel, background = lower pixel (may be default).
package final class CellRenderer {
    /// The colours cells may use.
    package let mode: ColorMode
    /// What transparent pixels show.
    package let background: BackgroundMode
    /// Background handling, palette mapping and dithering of each pixel.
    private let colors: PixelColorMapper
    private var quantizer: PaletteQuantizer? { colors.quantizer }

    /// A renderer for `mode`, with `background` under transparent pixels, `dither` in palette
    /// modes and, for 16-colour mode, the terminal's real colours 0–15 (OSC 4 answers) when known.
    package init(mode: ColorMode, background: BackgroundMode, dither: DitherMode = .none,
                palette16: [RGBColor]? = nil) {
        self.mode = mode
        self.background = background
        colors = PixelColorMapper(mode: mode, background: background, dither: dither, palette16: palette16)
    }

    /// Renders `frame` into `grid`, resizing it to width × ⌈height/2⌉ cells.
    package func render(_ frame: ScaledFrame, into grid: CellGrid) {
        if let cells = frame.symbolCells { render(cells, into: grid); return }
        grid.symbols = .half
        let w = frame.size.width, h = frame.size.height
        let rows = (h + 1) / 2
        if grid.columns != w || grid.rows != rows { grid.resize(columns: w, rows: rows) }
        let glyphs = grid.glyphs, fgs = grid.foregrounds, bgs = grid.backgrounds
        let colors = colors.map(frame)
        for r in 0..<rows {
            let y0 = 2 * r, y1 = 2 * r + 1
            let top = colors + y0 * w
            let bottom: UnsafePointer<UInt32>? = y1 < h ? colors + y1 * w : nil
            for x in 0..<w {
                let t = top[x]
                let b = bottom?[x] ?? CellColor.terminalDefault
                let i = r * w + x
                if t == b {
                    glyphs[i] = CellGlyph.space.rawValue; fgs[i] = b; bgs[i] = b
                } else if t == CellColor.terminalDefault {
                    glyphs[i] = CellGlyph.lower.rawValue; fgs[i] = b; bgs[i] = t
                } else {
                    glyphs[i] = CellGlyph.upper.rawValue; fgs[i] = t; bgs[i] = b
                }
            }
        }
    }
    /// Cells whose glyphs `SymbolEncoder` chose: only the colours are mapped (palette modes,
    /// nearest colour: a cell's two colours are already its pixels' best pair), then each cell
    /// is stored in canonical form.
    private func render(_ cells: SymbolCells, into grid: CellGrid) {
        grid.symbols = cells.symbols
        if grid.columns != cells.columns || grid.rows != cells.rows {
            grid.resize(columns: cells.columns, rows: cells.rows)
        }
        cells.masks.withUnsafeBufferPointer { masks in
            cells.foregrounds.withUnsafeBufferPointer { fgs in
                cells.backgrounds.withUnsafeBufferPointer { bgs in
                    for i in 0..<cells.count {
                        grid.set(i, mask: masks[i], foreground: mapped(fgs[i]), background: mapped(bgs[i]))
                    }
                }
            }
        }
    }

    @inline(__always)
    private func mapped(_ c: UInt32) -> UInt32 {
        guard let q = quantizer else { return c }
        return PixelColorMapper.index(q, c)
    }
}
