/// Reduces an image by a whole factor while its rows arrive (a PNG decoded row by row), so the
/// full-size image is never held: only one row of sums per output row.
///
/// Each output pixel is the mean of its `factor`×`factor` block (smaller at the right and
/// bottom edges), colours averaged in linear light and weighted by alpha, as
/// `AreaAverageScaler` averages.
final class BoxDownscaler {
    let factor: Int
    let sourceWidth: Int, sourceHeight: Int
    private let canvas: Canvas
    /// Per output pixel: alpha-weighted linear R, G, B, and alpha, over the rows added so far.
    private let sums: UnsafeMutablePointer<Float>

    init(sourceWidth: Int, sourceHeight: Int, factor: Int, into canvas: Canvas) {
        precondition(canvas.width == (sourceWidth + factor - 1) / factor && canvas.height == (sourceHeight + factor - 1) / factor)
        self.factor = factor
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.canvas = canvas
        sums = .allocate(capacity: canvas.width * 4)
        sums.initialize(repeating: 0, count: canvas.width * 4)
    }

    deinit { sums.deallocate() }

    /// Adds source row `y` (RGBA, `sourceWidth` pixels); writes the output row it completes.
    func add(row y: Int, _ rgba: UnsafePointer<UInt8>) {
        let lin = SRGBTables.shared.toLinear
        var s = rgba
        var x = 0
        while x < sourceWidth {
            let o = sums + (x / factor) * 4
            let end = min(x + factor, sourceWidth)
            var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
            while x < end {
                let alpha = Float(s[3]) * (1 / 255)
                r += lin[Int(s[0])] * alpha; g += lin[Int(s[1])] * alpha; b += lin[Int(s[2])] * alpha; a += alpha
                s += 4; x += 1
            }
            o[0] += r; o[1] += g; o[2] += b; o[3] += a
        }
        if (y + 1) % factor == 0 || y == sourceHeight - 1 { emit(row: y / factor, rows: y % factor + 1) }
    }

    private func emit(row: Int, rows: Int) {
        let tables = SRGBTables.shared
        let out = canvas.pixels.baseAddress! + row * canvas.rowBytes
        for c in 0..<canvas.width {
            let o = sums + c * 4
            let cols = min(factor, sourceWidth - c * factor)
            let a = o[3]
            let p = out + c * 4
            if a > 0 {
                p[0] = tables.srgb(fromLinear: o[0] / a)
                p[1] = tables.srgb(fromLinear: o[1] / a)
                p[2] = tables.srgb(fromLinear: o[2] / a)
                p[3] = UInt8(min(255, (a / Float(cols * rows) * 255).rounded()))
            } else {
                p[0] = 0; p[1] = 0; p[2] = 0; p[3] = 0
            }
        }
        sums.update(repeating: 0, count: canvas.width * 4)
    }
}
