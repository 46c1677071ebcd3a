#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// Maps 24-bit colours to the nearest xterm palette entry by distance in OKLab, a perceptual
/// space: plain RGB distance picks visibly wrong greys and hues (e.g. dark saturated colours
/// collapse to grey). Candidates: the cube and grey ramp (16–255) in 256-colour mode, because
/// entries 0–15 change with the terminal's theme; the 16 ANSI colours in 16-colour mode, with
/// the terminal's real values when it told them (OSC 4), else xterm's defaults.
///
/// With only 16 colours plain OKLab distance still loses hues: the nearest entry in lightness
/// is usually a grey (a dark teal is nearer grey than cyan), and about half the chromatic
/// pixels of a Mandelbrot frame turn grey. So in 16-colour mode the distance (OKLab split into
/// lightness, chroma and hue) weighs lightness by `lightnessWeight`, chroma lost (the candidate
/// less colourful than the pixel) `chromaLossWeight` times and hue `hueWeight` times: a
/// colourful pixel keeps its hue (never the opposite one), near-greys stay grey, and lightness
/// errors are left to dithering. Weights chosen on a Mandelbrot frame (Benchmarks/palette16.py):
/// hue kept on 97 % of its chromatic pixels instead of 51 %.
///
/// Results are memoised in a small direct-mapped cache: animation frames repeat most colours.
/// One quantiser per thread (it owns mutable cache memory).
final class PaletteQuantizer {
    let mode: ColorMode
    private let first: Int, count: Int
    private let lab: UnsafeMutablePointer<Float>       // 3 floats per palette entry (all 256)
    private let chroma: UnsafeMutablePointer<Float>    // per palette entry
    private let rgb: UnsafeMutablePointer<UInt8>       // 3 per palette entry, as the terminal shows it
    /// See the type's notes (measured on a Mandelbrot frame: Benchmarks/palette16.py).
    static let lightnessWeight: Float = 0.4, chromaLossWeight: Float = 12, hueWeight: Float = 4
    private let cacheKeys: UnsafeMutablePointer<UInt32>
    private let cacheValues: UnsafeMutablePointer<UInt8>
    private static let cacheSize = 1 << 14

    /// Whether 16-colour mode uses the hue-keeping distance (error diffusion does not: it
    /// needs the plainly nearest colour so that the errors it spreads average out).
    let keepsHue: Bool

    /// `palette16`: the terminal's colours 0–15 (OSC 4 answers) instead of xterm's defaults.
    init(mode: ColorMode, palette16: [RGBColor]? = nil, keepHue: Bool = true) {
        self.mode = mode
        keepsHue = keepHue
        (first, count) = mode == .palette16 ? (0, 16) : (16, 240)
        lab = .allocate(capacity: 256 * 3)
        chroma = .allocate(capacity: 256)
        rgb = .allocate(capacity: 256 * 3)
        let custom = palette16?.count == 16 ? palette16 : nil
        for i in 0..<256 {
            var (r, g, b) = Self.xtermRGB(i)
            if i < 16, let c = custom?[i] { (r, g, b) = (c.r, c.g, c.b) }
            rgb[i * 3] = r; rgb[i * 3 + 1] = g; rgb[i * 3 + 2] = b
            let l = Self.oklab(r, g, b)
            lab[i * 3] = l.0; lab[i * 3 + 1] = l.1; lab[i * 3 + 2] = l.2
            chroma[i] = (l.1 * l.1 + l.2 * l.2).squareRoot()
        }
        cacheKeys = .allocate(capacity: Self.cacheSize)
        cacheKeys.initialize(repeating: UInt32.max, count: Self.cacheSize)
        cacheValues = .allocate(capacity: Self.cacheSize)
        cacheValues.initialize(repeating: 0, count: Self.cacheSize)
    }

    deinit { lab.deallocate(); chroma.deallocate(); rgb.deallocate(); cacheKeys.deallocate(); cacheValues.deallocate() }

    /// The palette entries colours are mapped to.
    var candidates: Range<Int> { first..<(first + count) }

    /// The sRGB colour the terminal shows for palette entry `i`.
    @inline(__always)
    func color(of i: UInt8) -> (UInt8, UInt8, UInt8) {
        let p = rgb + Int(i) * 3
        return (p[0], p[1], p[2])
    }

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
        if mode == .palette16 && keepsHue {
            let c = (A * A + B * B).squareRoot()
            // ΔE² = ΔL² + ΔC² + ΔH²; the extra weights add to the plain terms.
            let wL = Self.lightnessWeight, wLoss = Self.chromaLossWeight - 1, wHue = Self.hueWeight - 1
            for i in first..<(first + count) {
                let p = lab + i * 3
                let dl = p[0] - L, da = p[1] - A, db = p[2] - B
                let dab = da * da + db * db
                let dc = c - chroma[i]
                let lost = max(dc, 0), dh = max(dab - dc * dc, 0)
                let d = wL * dl * dl + dab + wLoss * lost * lost + wHue * dh
                if d < bestD { bestD = d; best = i }
            }
            return UInt8(best)
        }
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
