import AnimatedCore

/// A frame flattened over its background: 8-bit sRGB, 3 bytes a pixel, rows packed. What the
/// pixel encoders (sixel, iTerm2) send: a whole frame that replaces the previous one, so nothing
/// of that frame may show through transparent pixels.
package struct OpaqueFrame: Sendable {
    package let size: RenderSize
    package var rgb: [UInt8]

    /// `frame` composited over `background` (the same rule as the cell renderers). Where the
    /// terminal's own background would show, `terminalColor` is painted: a terminal image cannot
    /// leave pixels unpainted without the previous frame showing through them. Default: the
    /// colour `.terminalBlend` carries (the terminal's OSC 11 answer), else black.
    package init(_ frame: ScaledFrame, background: BackgroundMode, terminalColor: (UInt8, UInt8, UInt8)? = nil) {
        size = frame.size
        let w = frame.size.width, h = frame.size.height
        var out = [UInt8](repeating: 0, count: w * h * 3)
        frame.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress, src.count >= w * h * 4 else { return }
                Self.flatten(s, width: w, height: h, background: background, terminalColor: terminalColor, into: d)
            }
        }
        rgb = out
    }

    /// Flattens `width`×`height` RGBA pixels into RGB at `dst` (3 bytes a pixel). `dst` may be
    /// `src` itself: each pixel is written no later than it is read. `firstRow`: the frame row
    /// `src` starts at (a pattern background depends on it), when flattening part of a frame.
    package static func flatten(_ src: UnsafePointer<UInt8>, width w: Int, height h: Int, firstRow: Int = 0,
                                background: BackgroundMode,
                                terminalColor: (UInt8, UInt8, UInt8)?, into d: UnsafeMutablePointer<UInt8>) {
        let behind = terminalColor ?? Self.terminalColor(of: background)
        let terminal = UInt32(behind.0) << 16 | UInt32(behind.1) << 8 | UInt32(behind.2)
        for y in 0..<h {
            var sp = src + y * w * 4, dp = d + y * w * 3
            for x in 0..<w {
                if sp[3] == 255 {
                    let r = sp[0], g = sp[1], b = sp[2]
                    dp[0] = r; dp[1] = g; dp[2] = b
                } else {
                    var c = background.shown(sp, x: x, y: firstRow + y)
                    if c == CellColor.terminalDefault { c = terminal }
                    dp[0] = UInt8(c >> 16); dp[1] = UInt8((c >> 8) & 0xFF); dp[2] = UInt8(c & 0xFF)
                }
                sp += 4; dp += 3
            }
        }
    }

    package init(size: RenderSize, rgb: [UInt8]) {
        precondition(rgb.count == size.width * size.height * 3)
        self.size = size; self.rgb = rgb
    }

    /// The terminal's background as far as `background` knows it.
    package static func terminalColor(of background: BackgroundMode) -> (UInt8, UInt8, UInt8) {
        if case let .terminalBlend(r, g, b) = background { return (r, g, b) }
        return (0, 0, 0)
    }
}
