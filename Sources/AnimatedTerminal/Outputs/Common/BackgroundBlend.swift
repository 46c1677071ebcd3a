import AnimatedCore

/// Background handling of one RGBA pixel: what it shows once the background mode is applied.
/// Shared by every renderer of scaled frames (half blocks, finer glyphs), so they agree.
extension BackgroundMode {
    /// Checkerboard greys and square size (pixels), as timg's -B.
    static let checkerLight: UInt8 = 0x99, checkerDark: UInt8 = 0x66, checkerSquare = 4

    /// The colour pixel `p` (RGBA, straight alpha) at render position (x, y) shows:
    /// 0xRRGGBB, or `CellColor.terminalDefault` where the terminal's own background shows.
    @inline(__always)
    func shown(_ p: UnsafePointer<UInt8>, x: Int, y: Int) -> UInt32 {
        var r = p[0], g = p[1], b = p[2]
        let a = p[3]
        if a != 255 {
            switch self {
            case .terminal:
                if a < 128 { return CellColor.terminalDefault }
            case let .terminalBlend(br, bg, bb):
                if a == 0 { return CellColor.terminalDefault }
                let lin = SRGBTables.shared
                let f = Float(a) * (1 / 255)
                r = Self.overLinear(r, br, f, lin); g = Self.overLinear(g, bg, f, lin); b = Self.overLinear(b, bb, f, lin)
            case let .color(br, bg, bb):
                r = Self.over(r, br, a); g = Self.over(g, bg, a); b = Self.over(b, bb, a)
            case .checker:
                let light = ((x / Self.checkerSquare) + (y / Self.checkerSquare)) & 1 == 0
                let c = light ? Self.checkerLight : Self.checkerDark
                r = Self.over(r, c, a); g = Self.over(g, c, a); b = Self.over(b, c, a)
            }
        }
        return UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
    }

    /// Straight-alpha OVER on one sRGB channel, rounded: c·a + bg·(1−a) (what browsers do
    /// for a page background).
    @inline(__always)
    static func over(_ c: UInt8, _ bg: UInt8, _ a: UInt8) -> UInt8 {
        let v = UInt32(c) * UInt32(a) + UInt32(bg) * (255 - UInt32(a))
        return UInt8((v + 127) / 255)
    }

    /// OVER in linear light: the light of the pixel and of the background mixed by coverage.
    @inline(__always)
    static func overLinear(_ c: UInt8, _ bg: UInt8, _ a: Float, _ t: SRGBTables) -> UInt8 {
        t.srgb(fromLinear: t.toLinear[Int(c)] * a + t.toLinear[Int(bg)] * (1 - a))
    }
}
