import AnimatedCore

/// Writes palette indices as a sixel image (`DCS 0;0;0 q " 1;1;W;H #palette bands ST`).
///
/// Per band of six rows, one pass scatters every pixel's bit into its colour's row of masks
/// (`masks[c·width + x] |= 1 << dy`) and widens that colour's column range with min/max: no
/// branch per pixel. Then each colour used in the band is written over its range only, with
/// run-length codes (`!n`), and its masks are zeroed again. Memory: one mask row per register
/// (256 × width bytes) and the output buffer, both reused from frame to frame.
///
/// The whole image is painted (every pixel's register is set). `P2 = 0`, as libsixel writes:
/// a run of the mlterm test on the loaded machine missed a frame with `P2 = 1` (unset pixels
/// transparent), none since.
final class SixelBandWriter {
    private var masks: UnsafeMutablePointer<UInt8>
    private var maskWidth = 0
    private let low: UnsafeMutablePointer<Int32>
    private let high: UnsafeMutablePointer<Int32>
    private var out: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var length = 0

    init() {
        masks = .allocate(capacity: 1)
        low = .allocate(capacity: 256)
        high = .allocate(capacity: 256)
        capacity = 1 << 16
        out = .allocate(capacity: capacity)
    }

    deinit { masks.deallocate(); low.deallocate(); high.deallocate(); out.deallocate() }

    /// The sixel image of `indices` (`width`×`height` palette indices) with `palette` (RGB triples).
    func write(indices: UnsafePointer<UInt8>, width w: Int, height h: Int, palette: [UInt8]) -> [UInt8] {
        length = 0
        if maskWidth != w {
            masks.deallocate()
            masks = .allocate(capacity: 256 * w)
            masks.initialize(repeating: 0, count: 256 * w)
            maskWidth = w
        }
        append(Array("\u{1B}P0;0;0q\"1;1;\(w);\(h)".utf8))
        let colours = palette.count / 3
        for i in 0..<colours {
            // Sixel colours are percentages.
            let r = (Int(palette[i * 3]) * 100 + 127) / 255
            let g = (Int(palette[i * 3 + 1]) * 100 + 127) / 255
            let b = (Int(palette[i * 3 + 2]) * 100 + 127) / 255
            append(Array("#\(i);2;\(r);\(g);\(b)".utf8))
        }
        let masks = masks, low = low, high = high
        var y0 = 0
        while y0 < h {
            low.initialize(repeating: Int32.max, count: 256)
            high.initialize(repeating: -1, count: 256)
            for dy in 0..<min(6, h - y0) {
                let bit = UInt8(1 << dy)
                let row = indices + (y0 + dy) * w
                for x in 0..<w {
                    let c = Int(row[x])
                    masks[c * w + x] |= bit
                    low[c] = min(low[c], Int32(x))
                    high[c] = max(high[c], Int32(x))
                }
            }
            var first = true
            for c in 0..<256 where high[c] >= 0 {
                let lo = Int(low[c]), hi = Int(high[c])
                reserve(16 + 2 * (hi + 1))
                if !first { put(0x24) }            // $: back to the band's start
                first = false
                put(0x23); putNumber(c)            // #c
                if lo > 0 { run(0, lo) }
                let m = masks + c * w
                var value = m[lo], n = 1
                var x = lo + 1
                while x <= hi {
                    let v = m[x]
                    if v == value { n += 1 } else { run(value, n); value = v; n = 1 }
                    x += 1
                }
                run(value, n)
                (m + lo).update(repeating: 0, count: hi - lo + 1)
            }
            y0 += 6
            reserve(2)
            if y0 < h { put(0x2D) }               // -: next band
        }
        reserve(2)
        put(0x1B); put(0x5C)
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    @inline(__always) private func run(_ v: UInt8, _ n: Int) {
        let ch = 63 + v
        if n > 3 { put(0x21); putNumber(n); put(ch) } else { for _ in 0..<n { put(ch) } }
    }

    @inline(__always) private func put(_ b: UInt8) { out[length] = b; length += 1 }

    private func putNumber(_ v: Int) {
        if v >= 10 { putNumber(v / 10) }
        put(UInt8(48 + v % 10))
    }

    private func append(_ bytes: [UInt8]) {
        reserve(bytes.count)
        for b in bytes { put(b) }
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
