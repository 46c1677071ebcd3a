import AnimatedCore

/// How cell colours are expressed on the terminal.
public enum ColorMode: String, Sendable, CaseIterable {
    /// 24-bit: SGR 38;2;r;g;b / 48;2;r;g;b. Cell colours are 0xRRGGBB.
    case truecolor
    /// xterm 256 colours: the 6×6×6 cube and grey ramp (16–255). Cell colours are indices.
    case palette256 = "256"
    /// The 16 ANSI colours (xterm's default values). Cell colours are indices 0–15.
    case palette16 = "16"
}

/// A cell colour: 0xRRGGBB in truecolor mode, a palette index otherwise, or the terminal's
/// default colour.
package enum CellColor {
    /// The terminal's own default colour (no SGR colour).
    package static let terminalDefault: UInt32 = 0xFF00_0000
}

/// What is drawn behind transparent pixels.
public enum BackgroundMode: Sendable, Equatable {
    /// Pixels less than half opaque show the terminal's own background; the others are drawn
    /// opaque (the terminal's background colour is unknown, so there is nothing to blend with).
    case terminal
    /// Fully transparent pixels show the terminal's own background; partly transparent ones
    /// are blended over the terminal's background colour (from OSC 11, or an assumed one) in
    /// sRGB with straight alpha, as a browser shows an image over a page background (and as
    /// kitty composites an image with alpha): every output shows the same picture.
    case terminalBlend(UInt8, UInt8, UInt8)
    /// Blend over a solid colour (sRGB, like a browser page background).
    case color(UInt8, UInt8, UInt8)
    /// Blend over a grey checkerboard of 4-pixel squares (like timg -B).
    case checker
}
