/// Turns a scaled frame into half-block cells: cell (x, r) shows pixel (x, 2r) in its upper
/// half and (x, 2r+1) in its lower half (transparent when the frame has an odd height).
///
/// Cells come out in one canonical form, so equal-looking cells compare equal and the diff
/// writes only what changed:
/// - both halves the same colour: `space` with that background (foreground = background);
/// - upper half transparent to the terminal: `lower`, foreground = lower pixel;
/// - otherwise `upper`, foreground = upper pixel, background = lower pixel (may be default).
public final class CellRenderer {
    public let mode: ColorMode
    public let background: BackgroundMode
    private let quantizer: PaletteQuantizer?

    public init(mode: ColorMode, background: BackgroundMode) {
        self.mode = mode
        self.background = background
        quantizer = mode == .truecolor ? nil : PaletteQuantizer(mode: mode)
    }

    /// Renders `frame` into `grid`, resizing it to width × ⌈height/2⌉ cells.
    public func render(_ frame: ScaledFrame, into grid: CellGrid) {
        let w = frame.size.width, h = frame.size.height
        let rows = (h + 1) / 2
        if grid.columns != w || grid.rows != rows { grid.resize(columns: w, rows: rows) }
        let glyphs = grid.glyphs, fgs = grid.foregrounds, bgs = grid.backgrounds
        frame.pixels.withUnsafeBufferPointer { buf in
            let px = buf.baseAddress!
            for r in 0..<rows {
                let y0 = 2 * r, y1 = 2 * r + 1
                let top = px + y0 * w * 4
                let bottom: UnsafePointer<UInt8>? = y1 < h ? px + y1 * w * 4 : nil
                for x in 0..<w {
                    let t = color(top + x * 4, x: x, y: y0)
                    let b = bottom.map { color($0 + x * 4, x: x, y: y1) } ?? CellColor.terminalDefault
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
    }

    /// The cell colour of one RGBA pixel after background handling and quantisation.
    @inline(__always)
    private func color(_ p: UnsafePointer<UInt8>, x: Int, y: Int) -> UInt32 {
        let c = background.shown(p, x: x, y: y)
        guard let q = quantizer, c != CellColor.terminalDefault else { return c }
        return UInt32(q.index(UInt8(c >> 16), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)))
    }
}
