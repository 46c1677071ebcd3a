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
                r = Self.over(r, br, a); g = Self.over(g, bg, a); b = Self.over(b, bb, a)
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

    /// Straight-alpha OVER on one sRGB channel, c·a + bg·(1−a), exactly as Chromium shows an
    /// image over a page background: the colour premultiplied and rounded, plus the
    /// background scaled by 256 − a and truncated (Skia's 8-bit source-over). Checked against
    /// Chromium 156 on every alpha over four backgrounds (Tests/Fixtures/browser/blend).
    /// Browsers blend code values, not light: a 10 %-opaque white over black is 25, not 89.
    @inline(__always)
    static func over(_ c: UInt8, _ bg: UInt8, _ a: UInt8) -> UInt8 {
        let premultiplied = (UInt32(c) * UInt32(a) + 127) / 255
        return UInt8(min(255, premultiplied + (UInt32(bg) * (256 - UInt32(a))) >> 8))
    }
}
