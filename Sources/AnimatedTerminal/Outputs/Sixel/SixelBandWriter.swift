import AnimatedCore

/// Writes palette indices as a sixel image (`DCS 0;0;0 q " 1;1;W;H #palette bands ST`).
///
/// Per band of six rows, one pass scatters every pixel's bit into its colour's row of masks
/// (`masks[c·width + x] |= 1 << dy`) and marks the colour used: stores only, no min/max kept
/// per pixel (a colour's column range through memory was a chain of dependent loads and stores,
/// a third of the writer's time). Then each colour used in the band is written with run-length
/// codes (`!n`), its row scanned eight bytes at a time while they repeat the run's value (most
/// of a colour's row is empty), a trailing empty run left out; its masks are zeroed again.
/// Memory: one mask row per register (256 × width bytes) and the output buffer, both reused
/// from frame to frame.
///
/// The whole image is painted (every pixel's register is set). `P2 = 0`, as libsixel writes:
/// a run of the mlterm test on the loaded machine missed a frame with `P2 = 1` (unset pixels
/// transparent), none since.
final class SixelBandWriter {
    private var masks: UnsafeMutablePointer<UInt8>
    private var maskWidth = 0
    private let used: UnsafeMutablePointer<UInt8>
    private var out: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var length = 0

    init() {
        masks = .allocate(capacity: 1)
        used = .allocate(capacity: 256)
        used.initialize(repeating: 0, count: 256)
        capacity = 1 << 16
        out = .allocate(capacity: capacity)
    }

    deinit { masks.deallocate(); used.deallocate(); out.deallocate() }

    /// The sixel image of `indices` (`width`×`height` palette indices) with `palette` (RGB triples).
    func write(indices: UnsafePointer<UInt8>, width w: Int, height h: Int, palette: [UInt8]) -> [UInt8] {
        Array(writeInPlace(indices: indices, width: w, height: h, palette: palette))
    }

    /// As `write`, into the writer's own buffer: the bytes stay valid until the next call.
    func writeInPlace(indices: UnsafePointer<UInt8>, width w: Int, height h: Int, palette: [UInt8]) -> UnsafeBufferPointer<UInt8> {
        begin(width: w, height: h, palette: palette)
        appendBands(indices: indices, width: w, rows: 0..<h, height: h)
        return finish()
    }

    /// As `writeInPlace`, the bands of the lower half written by `helper` (another writer) on a
    /// thread of its own meanwhile: the same bytes in about half the time, for large frames
    /// (the bands of a 1200×675 frame took about 5 ms on the producer thread alone).
    func writeInPlace(indices: UnsafePointer<UInt8>, width w: Int, height h: Int, palette: [UInt8],
                      helper: SixelBandWriter) -> UnsafeBufferPointer<UInt8> {
        guard h >= 12 else { return writeInPlace(indices: indices, width: w, height: h, palette: palette) }
        let split = h / 12 * 6      // a band boundary near the middle
        begin(width: w, height: h, palette: palette)
        helper.length = 0
        helper.fitMasks(w)
        let lower = LowerHalf(writer: helper, indices: indices)
        SideThread.run({ lower.writer.appendBands(indices: lower.indices, width: w, rows: split..<h, height: h) },
                       alongside: { appendBands(indices: indices, width: w, rows: 0..<split, height: h) })
        reserve(helper.length)
        (out + length).update(from: helper.out, count: helper.length)
        length += helper.length
        return finish()
    }

    /// The helper writer and the indices for the side thread. @unchecked Sendable: the helper
    /// is used by the side thread alone until `SideThread.run` returns, and the indices are
    /// only read.
    private struct LowerHalf: @unchecked Sendable {
        let writer: SixelBandWriter
        let indices: UnsafePointer<UInt8>
    }

    /// Mask rows of `w` bytes (all zero).
    private func fitMasks(_ w: Int) {
        if maskWidth != w {
            masks.deallocate()
            // 8 spare bytes: the word-wide scan may read up to 7 bytes past a row's end.
            masks = .allocate(capacity: 256 * w + 8)
            masks.initialize(repeating: 0, count: 256 * w + 8)
            maskWidth = w
        }
    }

    /// Starts an image: the DCS, the raster attributes and the palette.
    private func begin(width w: Int, height h: Int, palette: [UInt8]) {
        length = 0
        fitMasks(w)
        reserve(48 + palette.count / 3 * 20)
        put(0x1B); put(0x50); put(0x30); put(0x3B); put(0x30); put(0x3B); put(0x30); put(0x71)  // ESC P 0;0;0 q
        put(0x22); put(0x31); put(0x3B); put(0x31); put(0x3B)                                    // " 1;1;
        putNumber(w); put(0x3B); putNumber(h)
        let colours = palette.count / 3
        for i in 0..<colours {
            // Sixel colours are percentages.
            put(0x23); putNumber(i); put(0x3B); put(0x32)                                        // #i;2
            for c in 0..<3 { put(0x3B); putNumber((Int(palette[i * 3 + c]) * 100 + 127) / 255) }
        }
    }

    /// Appends the bands of `rows` (starting on a band boundary) of an image `height` rows
    /// tall, each but the image's last followed by `-`.
    private func appendBands(indices: UnsafePointer<UInt8>, width w: Int, rows: Range<Int>, height h: Int) {
        let masks = masks, used = used
        var y0 = rows.lowerBound
        while y0 < rows.upperBound {
            for dy in 0..<min(6, h - y0) {
                let bit = UInt8(1 << dy)
                let row = indices + (y0 + dy) &* w
                for x in 0..<w {
                    let c = Int(row[x])
                    masks[c &* w &+ x] |= bit
                    used[c] = 1
                }
            }
            var first = true
            for c in 0..<256 where used[c] != 0 {
                used[c] = 0
                reserve(16 + 2 * w)
                if !first { put(0x24) }            // $: back to the band's start
                first = false
                put(0x23); putNumber(c)            // #c
                let m = masks + c &* w
                var value = m[0], n = 1
                var word = UInt64(value) &* 0x0101_0101_0101_0101
                var x = 1
                while x < w {
                    // Eight bytes of the run at once (the row has 8 spare bytes after it).
                    if x &+ 8 <= w && UnsafeRawPointer(m + x).loadUnaligned(as: UInt64.self) == word {
                        n &+= 8; x &+= 8; continue
                    }
                    let v = m[x]
                    if v == value { n &+= 1 } else {
                        run(value, n); value = v; n = 1
                        word = UInt64(value) &* 0x0101_0101_0101_0101
                    }
                    x &+= 1
                }
                if value != 0 { run(value, n) }     // an empty tail needs no bytes
                m.update(repeating: 0, count: w)
            }
            y0 += 6
            reserve(2)
            if y0 < h { put(0x2D) }               // -: next band
        }
    }

    /// Ends the image (ST); its bytes.
    private func finish() -> UnsafeBufferPointer<UInt8> {
        reserve(2)
        put(0x1B); put(0x5C)
        return UnsafeBufferPointer(start: out, count: length)
    }

    @inline(__always) private func run(_ v: UInt8, _ n: Int) {
        let ch = 63 + v
        if n > 3 { put(0x21); putNumber(n); put(ch) } else { for _ in 0..<n { put(ch) } }
    }

    @inline(__always) private func put(_ b: UInt8) { out[length] = b; length &+= 1 }

    /// Decimal digits of `v` (0 ≤ v, at most 10 digits: the reservations count on it).
    @inline(__always) private func putNumber(_ v: Int) {
        if v < 10 { put(UInt8(48 &+ v)); return }
        if v < 100 { put(UInt8(48 &+ v / 10)); put(UInt8(48 &+ v % 10)); return }
        if v < 1000 { put(UInt8(48 &+ v / 100)); put(UInt8(48 &+ v / 10 % 10)); put(UInt8(48 &+ v % 10)); return }
        putNumber(v / 10)
        put(UInt8(48 &+ v % 10))
    }

    private func reserve(_ extra: Int) {
        guard length + extra > capacity else { return }
        var c = capacity * 2
        while c < length + extra { c *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        bigger.update(from: out, count: length)
        out.deallocate()
        out = bigger; capacity = c
    }
}
