/// Pixel size of the render target (for half-block cells: columns × 2·rows).
public struct RenderSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// A size of `width`×`height` pixels.
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    /// `WxH`.
    public var description: String { "\(width)x\(height)" }
}

/// A composited frame prepared for the output: what the frame buffer holds and the display
/// writes. Cells get `pixels` (RGBA, 8-bit sRGB, straight alpha, rows packed, at the render
/// size); pixel outputs may keep only `payload`, their encoded form (kitty: the zlib
/// stream of the RGBA, or of the RGB of an opaque frame), so that the buffer's byte budget counts what is really held.
///
/// With finer symbols (AnimatedTerminal's `SymbolScaler`) the frame holds the chosen cells
/// instead of pixels (`pixels` is empty): glyph choice is the expensive part, so it is done once
/// on the producer thread and kept in the frame buffer with the frame. The core does not know
/// what cells are, only what they cost (`PreparedCells`).
public struct ScaledFrame: Sendable {
    /// Frame index in the animation.
    public let index: Int
    /// Its size in pixels; with `cells`, the render size in half-block pixels (columns ×
    /// 2·rows), whatever the symbols.
    public let size: RenderSize
    /// RGBA at `size`, rows packed, or empty when the output keeps only its payload.
    public let pixels: [UInt8]
    /// The output's encoded frame (empty for cells).
    package let payload: [UInt8]
    /// Bytes a pixel in `payload` when it carries pixels: 4 (RGBA), or 3 (RGB, kept when every
    /// pixel of the frame is opaque: kitty's `f=24`, a quarter less data to compress and send).
    package let channels: Int
    /// The cells, when the scaler chose the glyphs itself (`SymbolScaler`).
    package let cells: (any PreparedCells)?
    /// False for a frame held in a larger form than the others (the sixel output's first
    /// frame, not compressed so that the screen does not wait for it): the frame buffer does
    /// not size its window by it.
    package let typicalSize: Bool
    /// Frame `index` prepared at `size`: pixels, an output's payload, or its cells.
    package init(index: Int, size: RenderSize, pixels: [UInt8], payload: [UInt8] = [], channels: Int = 4,
                 cells: (any PreparedCells)? = nil, typicalSize: Bool = true) {
        self.index = index; self.size = size; self.pixels = pixels; self.payload = payload
        self.channels = channels; self.cells = cells; self.typicalSize = typicalSize
    }
    /// Bytes held: pixel data, payload and cells.
    public var byteCount: Int { pixels.count + payload.count + (cells?.byteCount ?? 0) }
}

/// Cells an output chose on the producer thread (the terminal layer's `SymbolCells`), held in
/// the frame buffer with their frame: the buffer counts their bytes against its budget.
package protocol PreparedCells: Sendable {
    /// Bytes held.
    var byteCount: Int { get }
}

/// Prepares a composited canvas for the output at the render size: scales it (and, for pixel
/// outputs, encodes it). Runs on the frame buffer's producer thread, so the display thread only
/// writes what it gets.
public protocol FrameScaler: Sendable {
    /// Frame `index`, composited in `canvas`, prepared at `size` for an output.
    func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame
}

/// Nearest-neighbour scaling: a simple reference used by tests.
struct NearestScaler: FrameScaler {
    init() {}
    func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        var out = [UInt8](repeating: 0, count: size.width * size.height * 4)
        for y in 0..<size.height {
            let sy = min(canvas.height - 1, y * canvas.height / size.height)
            for x in 0..<size.width {
                let sx = min(canvas.width - 1, x * canvas.width / size.width)
                let s = (sy * canvas.width + sx) * 4, d = (y * size.width + x) * 4
                for k in 0..<4 { out[d + k] = canvas.pixels[s + k] }
            }
        }
        return ScaledFrame(index: index, size: size, pixels: out)
    }
}
