/// The step APNG and WebP share to put one frame on the canvas. A frame that replaces its
/// rectangle is decoded straight into the canvas rows; any other is decoded into this reusable
/// buffer and then combined with the canvas by the codec's own blend (APNG: OVER as Chromium
/// computes it, in float; WebP: libwebp's integer formula, as browsers), which is why the blend
/// is a parameter.
///
/// The buffer remembers which frame it holds: drawing that frame again (a replay, or the first
/// frame a decoder decoded while opening) blends it without decoding it again.
final class FrameScratch {
    private var pointer: UnsafeMutablePointer<UInt8>
    private var capacity = 0
    /// The frame whose pixels the buffer holds; -1: none (also after a failed decode).
    private(set) var frame = -1

    init() { pointer = .allocate(capacity: 1) }
    deinit { pointer.deallocate() }

    /// Decodes frame `index` into the buffer unless it already holds it, and returns the
    /// pixels: `rect.width`×`rect.height` RGBA, rows packed. `decode(into, stride)` writes
    /// the frame's rows `stride` bytes apart.
    @discardableResult
    func load(_ index: Int, rect: FrameRect,
              decode: (_ into: UnsafeMutablePointer<UInt8>, _ stride: Int) throws(AnimatedError) -> Void)
        throws(AnimatedError) -> UnsafeMutablePointer<UInt8> {
        if frame == index { return pointer }
        let count = rect.width * rect.height * 4
        if count > capacity {
            pointer.deallocate()
            pointer = .allocate(capacity: count)
            capacity = count
        }
        frame = -1
        try decode(pointer, rect.width * 4)
        frame = index
        return pointer
    }

    /// Draws frame `index` at `rect` onto `canvas`. `direct`: nothing under the frame shows
    /// through and `rect` lies inside the canvas, so it is decoded into the canvas rows (unless
    /// the buffer already holds it). Otherwise it is decoded into the buffer and `blend(pixels)`
    /// combines those (rows packed, `rect.width * 4` bytes apart) with the canvas.
    func draw(_ index: Int, rect: FrameRect, onto canvas: Canvas, direct: Bool,
              decode: (_ into: UnsafeMutablePointer<UInt8>, _ stride: Int) throws(AnimatedError) -> Void,
              blend: (_ pixels: UnsafePointer<UInt8>) -> Void) throws(AnimatedError) {
        if direct && frame != index {
            try decode(canvas.pixels.baseAddress! + (rect.y * canvas.width + rect.x) * 4, canvas.rowBytes)
            return
        }
        blend(try load(index, rect: rect, decode: decode))
    }
}
