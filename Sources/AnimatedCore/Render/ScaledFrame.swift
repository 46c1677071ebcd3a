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

/// A composited frame already scaled to the render target: what the cell renderer consumes.
/// RGBA, 8-bit sRGB, straight (non-premultiplied) alpha, rows packed.
///
/// With finer symbols (`SymbolScaler`) the frame holds the chosen cells instead of pixels
/// (`pixels` is empty): glyph choice is the expensive part, so it is done once on the producer
/// thread and kept in the frame buffer with the frame.
public struct ScaledFrame: Sendable {
    /// Frame index in the animation.
    public let index: Int
    /// Its size in pixels; with `cells`, the render size in half-block pixels (columns ×
    /// 2·rows), whatever the symbols.
    public let size: RenderSize
    /// RGBA, rows packed.
    public let pixels: [UInt8]
    /// The cells, when the scaler chose the glyphs itself (`SymbolScaler`).
    public let cells: SymbolCells?
    /// Frame `index` scaled to `size` (pixels), or its cells for that size.
    public init(index: Int, size: RenderSize, pixels: [UInt8], cells: SymbolCells? = nil) {
        self.index = index; self.size = size; self.pixels = pixels; self.cells = cells
    }
    /// Bytes of pixel and cell data.
    public var byteCount: Int { pixels.count + (cells?.byteCount ?? 0) }
}

/// Scales a composited canvas to the render size. Runs on the frame buffer's producer thread.
public protocol FrameScaler: Sendable {
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
