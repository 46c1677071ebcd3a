#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// Maps 24-bit colours to the nearest entry of a palette (squared distance in sRGB, the measure
/// the PSNR of the result is taken in) and measures the error while doing so.
///
/// Two lookups, both tables that live as long as the palette:
/// - exact palettes (the frame's own ≤ 256 colours): a direct-mapped cache keyed by the exact
///   colour; a GIF frame repeats the same few colours, so almost every pixel is a hit;
/// - built palettes (smooth pictures, tens of thousands of colours): a table of 2^18 entries
///   indexed by the colour's top 6 bits per channel, filled on first use with the entry nearest
///   that colour. Enlarged frames have too many distinct colours for a cache keyed by the exact
///   colour; a colour within 3 levels of one seen before gets the same entry (at most ±3 per
///   channel more error than the exact search, measured: < 0.1 dB).
/// One map per thread (it owns mutable table memory).
final class SixelPaletteMap {
    private(set) var palette: [UInt8] = []
    private(set) var count = 0
    private(set) var exact = true
    private let cacheKeys: UnsafeMutablePointer<UInt32>
    private let cacheValues: UnsafeMutablePointer<UInt8>
    private static let cacheBits = 16
    private static let cacheSize = 1 << cacheBits
    private let table: UnsafeMutablePointer<UInt16>
    private static let tableSize = 1 << 18
    private static let unfilled = UInt16.max
    /// The palette's channels apart, 256 entries (unused ones far away), for the SIMD search.
    private let channels: UnsafeMutablePointer<SIMD8<Int32>>

    init() {
        cacheKeys = .allocate(capacity: Self.cacheSize)
        cacheValues = .allocate(capacity: Self.cacheSize)
        cacheKeys.initialize(repeating: UInt32.max, count: Self.cacheSize)
        cacheValues.initialize(repeating: 0, count: Self.cacheSize)
        table = .allocate(capacity: Self.tableSize)
        table.initialize(repeating: Self.unfilled, count: Self.tableSize)
        channels = .allocate(capacity: 3 * 32)
        channels.initialize(repeating: SIMD8(repeating: 1 << 12), count: 3 * 32)
    }

    deinit { cacheKeys.deallocate(); cacheValues.deallocate(); table.deallocate(); channels.deallocate() }

    /// Uses `palette` (count × RGB, 1 to 256 entries) from now on. `exact`: the palette holds
    /// every colour of the frames mapped to it (exact lookups), else it was built by reduction.
    func setPalette(_ palette: [UInt8], exact: Bool = true) {
        precondition(palette.count % 3 == 0 && (3...768).contains(palette.count))
        self.palette = palette
        self.exact = exact
        count = palette.count / 3
        // Entries past `count` sit at 4096 on every channel: never nearest.
        let lanes = UnsafeMutableRawPointer(channels).assumingMemoryBound(to: Int32.self)
        for i in 0..<256 {
            for c in 0..<3 { lanes[(c * 32 + i / 8) * 8 + i % 8] = i < count ? Int32(palette[i * 3 + c]) : 1 << 12 }
        }
        if exact {
            cacheKeys.update(repeating: UInt32.max, count: Self.cacheSize)
        } else {
            table.update(repeating: Self.unfilled, count: Self.tableSize)
        }
    }

    /// Writes the palette index of each pixel of `frame` to `indices` (w × h bytes) and returns
    /// the sum of squared channel errors.
    func map(_ frame: OpaqueFrame, into indices: inout [UInt8]) -> UInt64 {
        let n = frame.size.width * frame.size.height
        if indices.count != n { indices = [UInt8](repeating: 0, count: n) }
        return frame.rgb.withUnsafeBufferPointer { src in
            indices.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return 0 }
                return map(rgb: s, pixels: n, into: d)
            }
        }
    }

    /// `pixels` RGB triples at `rgb` to indices at `dst`; the sum of squared channel errors.
    func map(rgb: UnsafePointer<UInt8>, pixels n: Int, into d: UnsafeMutablePointer<UInt8>) -> UInt64 {
        map(rgb: rgb, pixels: n, into: d, measure: true)
    }

    /// As `map`, without measuring the error (rows whose error no decision needs: a third of
    /// the mapping's time went to it).
    func mapIndices(rgb: UnsafePointer<UInt8>, pixels n: Int, into d: UnsafeMutablePointer<UInt8>) {
        _ = map(rgb: rgb, pixels: n, into: d, measure: false)
    }

    /// A pixel of the same colour as the one before it takes that one's index and error without
    /// a lookup (enlarged frames repeat each source pixel about twice along a row, and flat
    /// areas far more).
    @inline(__always)
    private func map(rgb: UnsafePointer<UInt8>, pixels n: Int, into d: UnsafeMutablePointer<UInt8>, measure: Bool) -> UInt64 {
        var total: UInt64 = 0
        let count = count
        palette.withUnsafeBufferPointer { pal in
            guard let p = pal.baseAddress else { return }
            var s = rgb
            var lastKey = UInt32.max, lastIndex: UInt8 = 0, lastError: UInt64 = 0
            if exact {
                let keys = cacheKeys, values = cacheValues
                for i in 0..<n {
                    let key = UInt32(s[0]) << 16 | UInt32(s[1]) << 8 | UInt32(s[2])
                    if key != lastKey {
                        let slot = Int((key &* 0x9E37_79B1) >> UInt32(32 - Self.cacheBits))
                        let index: Int
                        if keys[slot] == key {
                            index = Int(values[slot])
                        } else {
                            index = Self.nearest(s[0], s[1], s[2], in: p, count: count)
                            keys[slot] = key; values[slot] = UInt8(index)
                        }
                        lastKey = key; lastIndex = UInt8(index)
                        if measure { lastError = Self.error(s, p + index &* 3) }
                    }
                    d[i] = lastIndex
                    total &+= lastError
                    s += 3
                }
            } else {
                let table = table
                for i in 0..<n {
                    let key = UInt32(s[0]) << 16 | UInt32(s[1]) << 8 | UInt32(s[2])
                    if key != lastKey {
                        let slot = Int(s[0] >> 2) << 12 | Int(s[1] >> 2) << 6 | Int(s[2] >> 2)
                        var index = Int(table[slot])
                        if index == Int(Self.unfilled) {
                            index = nearestVector(s[0], s[1], s[2])
                            table[slot] = UInt16(index)
                        }
                        lastKey = key; lastIndex = UInt8(index)
                        if measure { lastError = Self.error(s, p + index &* 3) }
                    }
                    d[i] = lastIndex
                    total &+= lastError
                    s += 3
                }
            }
        }
        return total
    }

    /// Squared distance between the colours at `s` and `q` (RGB).
    @inline(__always)
    private static func error(_ s: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>) -> UInt64 {
        let dr = Int(s[0]) &- Int(q[0]), dg = Int(s[1]) &- Int(q[1]), db = Int(s[2]) &- Int(q[2])
        return UInt64(dr &* dr &+ dg &* dg &+ db &* db)
    }

    /// The nearest entry, eight at a time (the search behind every table miss: tens of
    /// thousands per palette for an enlarged video frame).
    private func nearestVector(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        let vr = SIMD8<Int32>(repeating: Int32(r)), vg = SIMD8<Int32>(repeating: Int32(g)), vb = SIMD8<Int32>(repeating: Int32(b))
        var best = SIMD8<Int32>(repeating: Int32.max), bestIndex = SIMD8<Int32>(repeating: 0)
        var lane = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let step = SIMD8<Int32>(repeating: 8)
        for k in 0..<((count + 7) / 8) {
            let dr = channels[k] &- vr, dg = channels[32 + k] &- vg, db = channels[64 + k] &- vb
            let d = dr &* dr &+ dg &* dg &+ db &* db
            let better = d .< best
            best.replace(with: d, where: better)
            bestIndex.replace(with: lane, where: better)
            lane &+= step
        }
        var index = Int(bestIndex[0]), distance = best[0]
        for i in 1..<8 where best[i] < distance || (best[i] == distance && Int(bestIndex[i]) < index) {
            distance = best[i]; index = Int(bestIndex[i])
        }
        return index
    }

    @inline(__always)
    private static func nearest(_ r: UInt8, _ g: UInt8, _ b: UInt8, in p: UnsafePointer<UInt8>, count: Int) -> Int {
        var best = 0, bestDistance = Int.max
        for i in 0..<count {
            let q = p + i * 3
            let dr = Int(r) - Int(q[0]), dg = Int(g) - Int(q[1]), db = Int(b) - Int(q[2])
            let dd = dr * dr + dg * dg + db * db
            if dd < bestDistance { bestDistance = dd; best = i; if dd == 0 { break } }
        }
        return best
    }

    /// PSNR in dB of a squared-error sum over `pixels` pixels (3 channels); infinity when exact.
    static func psnr(squaredError: UInt64, pixels: Int) -> Double {
        guard squaredError > 0, pixels > 0 else { return .infinity }
        let mse = Double(squaredError) / Double(pixels * 3)
        return 10 * log10(255 * 255 / mse)
    }
}
