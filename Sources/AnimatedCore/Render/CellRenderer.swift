/// Turns a scaled frame into half-block cells: cell (x, r) shows pixel (x, 2r) in its upper
/// half and (x, 2r+1) in its lower half (transparent when the frame has an odd height).
///
/// Cells come out in one canonical form, so equal-looking cells compare equal and the diff
/// writes only what changed:
/// - both halves the same colour: `space` with that background (foreground = background);
/// - upper half transparent to the terminal: `lower`, foreground = lower pixel;
/// - otherwise `upper`, foreground = upper pixel, background = lower pixel (may be default).
public final class CellRenderer {
    /// The colours cells may use.
    public let mode: ColorMode
    /// What transparent pixels show.
    public let background: BackgroundMode
    private let quantizer: PaletteQuantizer?

    /// A renderer for `mode`, with `background` under transparent pixels.
    public init(mode: ColorMode, background: BackgroundMode) {
        self.mode = mode
        self.background = background
        quantizer = mode == .truecolor ? nil : PaletteQuantizer(mode: mode)
    }

    /// Checkerboard greys and square size (pixels), as timg's -B.
    static let checkerLight: UInt8 = 0x99, checkerDark: UInt8 = 0x66, checkerSquare = 4

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
        var r = p[0], g = p[1], b = p[2]
        let a = p[3]
        if a != 255 {
            switch background {
            case .terminal:
                if a < 128 { return CellColor.terminalDefault }
            case let .color(br, bg, bb):
                r = Self.over(r, br, a); g = Self.over(g, bg, a); b = Self.over(b, bb, a)
            case .checker:
                let light = ((x / Self.checkerSquare) + (y / Self.checkerSquare)) & 1 == 0
                let c = light ? Self.checkerLight : Self.checkerDark
                r = Self.over(r, c, a); g = Self.over(g, c, a); b = Self.over(b, c, a)
            }
        }
        if let q = quantizer { return UInt32(q.index(r, g, b)) }
        return UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
    }

    /// Straight-alpha OVER on one channel, rounded: c·a + bg·(1−a).
    @inline(__always)
    static func over(_ c: UInt8, _ bg: UInt8, _ a: UInt8) -> UInt8 {
        let v = UInt32(c) * UInt32(a) + UInt32(bg) * (255 - UInt32(a))
        return UInt8((v + 127) / 255)
    }
}
