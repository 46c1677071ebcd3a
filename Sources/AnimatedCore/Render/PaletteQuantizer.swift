#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps 24-bit colours to the nearest xterm palette entry by distance in OKLab, a perceptual
/// space: plain RGB distance picks visibly wrong greys and hues (e.g. dark saturated colours
/// collapse to grey). Candidates: the cube and grey ramp (16–255) in 256-colour mode, because
/// entries 0–15 change with the terminal's theme; the 16 ANSI colours in 16-colour mode.
///
/// Results are memoised in a small direct-mapped cache: animation frames repeat most colours.
/// One quantiser per thread (it owns mutable cache memory).
final class PaletteQuantizer {
    let mode: ColorMode
    private let first: Int, count: Int
    private let lab: UnsafeMutablePointer<Float>       // 3 floats per palette entry (all 256)
    private let cacheKeys: UnsafeMutablePointer<UInt32>
    private let cacheValues: UnsafeMutablePointer<UInt8>
    private static let cacheSize = 1 << 14

    init(mode: ColorMode) {
        self.mode = mode
        (first, count) = mode == .palette16 ? (0, 16) : (16, 240)
        lab = .allocate(capacity: 256 * 3)
        for i in 0..<256 {
            let (r, g, b) = Self.xtermRGB(i)
            let l = Self.oklab(r, g, b)
            lab[i * 3] = l.0; lab[i * 3 + 1] = l.1; lab[i * 3 + 2] = l.2
        }
        cacheKeys = .allocate(capacity: Self.cacheSize)
        cacheKeys.initialize(repeating: UInt32.max, count: Self.cacheSize)
        cacheValues = .allocate(capacity: Self.cacheSize)
        cacheValues.initialize(repeating: 0, count: Self.cacheSize)
    }

    deinit { lab.deallocate(); cacheKeys.deallocate(); cacheValues.deallocate() }

    /// The palette index nearest to an sRGB colour.
    @inline(__always)
    func index(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        let slot = Int((key &* 0x9E37_79B1) >> 18)   // 14-bit multiplicative hash
        if cacheKeys[slot] == key { return cacheValues[slot] }
        let v = nearest(r, g, b)
        cacheKeys[slot] = key; cacheValues[slot] = v
        return v
    }

    private func nearest(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let (L, A, B) = Self.oklab(r, g, b)
        var best = first, bestD = Float.infinity
        for i in first..<(first + count) {
            let p = lab + i * 3
            let dl = p[0] - L, da = p[1] - A, db = p[2] - B
            let d = dl * dl + da * da + db * db
            if d < bestD { bestD = d; best = i }
        }
        return UInt8(best)
    }

    /// xterm's colour for a palette index (its default 16 colours, the cube, the grey ramp).
    static func xtermRGB(_ i: Int) -> (UInt8, UInt8, UInt8) {
        switch i {
        case 0..<16:
            let t: [(UInt8, UInt8, UInt8)] = [
                (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
                (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0),
                (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
            return t[i]
        case 16..<232:
            let levels: [UInt8] = [0, 95, 135, 175, 215, 255]
            let c = i - 16
            return (levels[c / 36], levels[(c / 6) % 6], levels[c % 6])
        default:
            let v = UInt8(8 + 10 * (i - 232))
            return (v, v, v)
        }
    }

    /// sRGB to OKLab (Björn Ottosson, 2020).
    static func oklab(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (Float, Float, Float) {
        let lin = SRGBTables.shared.toLinear
        let lr = lin[Int(r)], lg = lin[Int(g)], lb = lin[Int(b)]
        let l = cbrtf(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb)
        let m = cbrtf(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb)
        let s = cbrtf(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb)
        return (0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
                1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
                0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s)
    }
}
