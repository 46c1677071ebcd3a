import CPNG

/// Writes a canvas as an 8-bit RGBA PNG through libpng (`dump --format png`).
public enum PNGWriter {
    /// The PNG file image of `canvas` (straight alpha, zlib `level` 0-9, adaptive row filters).
    public static func encode(_ canvas: Canvas, level: Int = 6) throws(AnimatedError) -> [UInt8] {
        if let why = animplay_png_load() { throw .system(String(cString: why)) }
        var buffer = animplay_png_buffer()
        defer { animplay_png_buffer_free(&buffer) }
        let rc = animplay_png_encode(canvas.pixels.baseAddress, UInt32(canvas.width), UInt32(canvas.height),
                                     canvas.rowBytes, 4, Int32(max(0, min(9, level))), 1, &buffer)
        guard rc == 0 else { throw .system("out of memory while writing a PNG") }
        return Array(UnsafeBufferPointer(start: buffer.data, count: buffer.length))
    }
}
