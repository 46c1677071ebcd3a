/// An RGBA, 8 bits per channel, non-premultiplied pixel buffer, row-major with no padding.
/// It owns its memory; hot loops inside this package reach it through `pixels`, code outside
/// through `withUnsafeBytes` / `withUnsafeMutableBytes` (the pointer is valid only inside).
public final class Canvas {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    package let pixels: UnsafeMutableBufferPointer<UInt8>

    /// A fully transparent canvas.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0)
        self.width = width
        self.height = height
        pixels = .allocate(capacity: width * height * 4)
        pixels.initialize(repeating: 0)
    }

    deinit { pixels.deallocate() }

    /// Bytes of pixel data: `width * height * 4`.
    public var byteCount: Int { pixels.count }
    /// Bytes per row: `width * 4`.
    public var rowBytes: Int { width * 4 }

    /// Sets every pixel to transparent black.
    public func clear() { pixels.update(repeating: 0) }

    /// Sets the pixels of `rect` (clipped) to transparent black.
    public func clear(_ rect: FrameRect) {
        let r = rect.clipped(toWidth: width, height: height)
        guard !r.isEmpty else { return }
        let base = pixels.baseAddress!
        for y in r.y..<(r.y + r.height) {
            (base + (y * width + r.x) * 4).update(repeating: 0, count: r.width * 4)
        }
    }

    /// Copies the pixels of `rect` (clipped) into `store`, resizing it as needed.
    package func save(_ rect: FrameRect, into store: inout [UInt8]) {
        let r = rect.clipped(toWidth: width, height: height)
        let n = r.width * r.height * 4
        if store.count != n { store = [UInt8](repeating: 0, count: n) }
        guard n > 0 else { return }
        store.withUnsafeMutableBufferPointer { dst in
            let src = pixels.baseAddress!
            for row in 0..<r.height {
                (dst.baseAddress! + row * r.width * 4)
                    .update(from: src + ((r.y + row) * width + r.x) * 4, count: r.width * 4)
            }
        }
    }

    /// Writes back what `save(_:into:)` stored for the same `rect`.
    package func restore(_ rect: FrameRect, from store: [UInt8]) {
        let r = rect.clipped(toWidth: width, height: height)
        guard r.width * r.height * 4 == store.count, !store.isEmpty else { return }
        store.withUnsafeBufferPointer { src in
            let dst = pixels.baseAddress!
            for row in 0..<r.height {
                (dst + ((r.y + row) * width + r.x) * 4)
                    .update(from: src.baseAddress! + row * r.width * 4, count: r.width * 4)
            }
        }
    }

    /// A copy of all pixels (tests, dumps).
    public func snapshot() -> [UInt8] { Array(pixels) }

    /// Calls `body` with the pixels, read-only: `height` rows of `rowBytes` bytes, RGBA.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(pixels))
    }

    /// Calls `body` with the pixels, writable (a decoder outside AnimatedCore drawing a frame).
    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(pixels))
    }
}
