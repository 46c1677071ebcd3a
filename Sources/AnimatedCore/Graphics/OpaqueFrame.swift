/// A frame flattened over its background: 8-bit sRGB, 3 bytes a pixel, rows packed. What the
/// pixel encoders (sixel, iTerm2) send: a whole frame that replaces the previous one, so nothing
/// of that frame may show through transparent pixels.
public struct OpaqueFrame: Sendable {
    public let size: RenderSize
    public var rgb: [UInt8]

    /// `frame` composited over `background`; `terminalColor` stands in for the terminal's own
    /// background under `.terminal` (its OSC 11 colour when known): a terminal image cannot
    /// leave pixels "unpainted" without the previous frame showing through them.
    public init(_ frame: ScaledFrame, background: BackgroundMode,
                terminalColor: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
        size = frame.size
        let w = frame.size.width, h = frame.size.height
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let solid: (UInt8, UInt8, UInt8)?
        switch background {
        case .terminal: solid = terminalColor
        case let .color(r, g, b): solid = (r, g, b)
        case .checker: solid = nil
        }
        frame.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for y in 0..<h {
                    var sp = s + y * w * 4, dp = d + y * w * 3
                    for x in 0..<w {
                        let a = sp[3]
                        if a == 255 {
                            dp[0] = sp[0]; dp[1] = sp[1]; dp[2] = sp[2]
                        } else {
                            let bg: (UInt8, UInt8, UInt8)
                            if let solid { bg = solid } else {
                                let light = ((x / CellRenderer.checkerSquare) + (y / CellRenderer.checkerSquare)) & 1 == 0
                                let c = light ? CellRenderer.checkerLight : CellRenderer.checkerDark
                                bg = (c, c, c)
                            }
                            dp[0] = CellRenderer.over(sp[0], bg.0, a)
                            dp[1] = CellRenderer.over(sp[1], bg.1, a)
                            dp[2] = CellRenderer.over(sp[2], bg.2, a)
                        }
                        sp += 4; dp += 3
                    }
                }
            }
        }
        rgb = out
    }

    public init(size: RenderSize, rgb: [UInt8]) {
        precondition(rgb.count == size.width * size.height * 3)
        self.size = size; self.rgb = rgb
    }
}
