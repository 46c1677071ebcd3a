#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// Maps 24-bit colours to the nearest entry of a palette (squared distance in sRGB, the measure
/// the PSNR of the result is taken in) and measures the error while doing so.
///
/// Results are memoised in a direct-mapped cache keyed by the exact colour: a GIF frame has at
/// most 256 colours and animation frames repeat them, so almost every pixel is a cache hit and
/// costs no search. One map per thread (it owns mutable cache memory).
final class SixelPaletteMap {
    private(set) var palette: [UInt8] = []
    private(set) var count = 0
    private let cacheKeys: UnsafeMutablePointer<UInt32>
    private let cacheValues: UnsafeMutablePointer<UInt8>
    private static let cacheBits = 16
    private static let cacheSize = 1 << cacheBits

    init() {
        cacheKeys = .allocate(capacity: Self.cacheSize)
        cacheValues = .allocate(capacity: Self.cacheSize)
        cacheKeys.initialize(repeating: UInt32.max, count: Self.cacheSize)
        cacheValues.initialize(repeating: 0, count: Self.cacheSize)
    }

    deinit { cacheKeys.deallocate(); cacheValues.deallocate() }

    /// Uses `palette` (count × RGB, 1 to 256 entries) from now on.
    func setPalette(_ palette: [UInt8]) {
        precondition(palette.count % 3 == 0 && (3...768).contains(palette.count))
        self.palette = palette
        count = palette.count / 3
        cacheKeys.update(repeating: UInt32.max, count: Self.cacheSize)
    }

    /// Writes the palette index of each pixel of `frame` to `indices` (w × h bytes) and returns
    /// the sum of squared channel errors.
    func map(_ frame: OpaqueFrame, into indices: inout [UInt8]) -> UInt64 {
        let n = frame.size.width * frame.size.height
        if indices.count != n { indices = [UInt8](repeating: 0, count: n) }
        var total: UInt64 = 0
        let keys = cacheKeys, values = cacheValues
        frame.rgb.withUnsafeBufferPointer { src in
            indices.withUnsafeMutableBufferPointer { dst in
                palette.withUnsafeBufferPointer { pal in
                    guard var s = src.baseAddress, let d = dst.baseAddress, let p = pal.baseAddress else { return }
                    for i in 0..<n {
                        let key = UInt32(s[0]) << 16 | UInt32(s[1]) << 8 | UInt32(s[2])
                        let slot = Int((key &* 0x9E37_79B1) >> UInt32(32 - Self.cacheBits))
                        let index: Int
                        if keys[slot] == key {
                            index = Int(values[slot])
                        } else {
                            index = Self.nearest(s[0], s[1], s[2], in: p, count: count)
                            keys[slot] = key; values[slot] = UInt8(index)
                        }
                        d[i] = UInt8(index)
                        let q = p + index * 3
                        let dr = Int(s[0]) - Int(q[0]), dg = Int(s[1]) - Int(q[1]), db = Int(s[2]) - Int(q[2])
                        total &+= UInt64(dr * dr + dg * dg + db * db)
                        s += 3
                    }
                }
            }
        }
        return total
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
