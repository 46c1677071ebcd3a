import AnimatedCore

/// Ordered dithering for an arbitrary palette: each colour becomes a mix of two palette
/// entries, and a threshold pattern decides per pixel which of the two it shows.
///
/// Adding a pattern offset to the colour before quantising (the textbook way) suits evenly
/// spaced palettes such as the 256-colour cube, but the 16 colours are spaced very unevenly:
/// measured on a Mandelbrot frame it barely moved the average error. Here the first entry is
/// the quantiser's choice (which keeps the hue), the second is the entry that, mixed with it in
/// linear light in the best proportion, comes closest to the colour; the proportion is the
/// share of threshold cells that show the second. A dark teal becomes cyan with black in it.
///
/// Plans are memoised per colour (direct-mapped). One mixer per thread.
final class PaletteMixer {
    let quantizer: PaletteQuantizer
    private let keys: UnsafeMutablePointer<UInt32>
    private let plans: UnsafeMutablePointer<UInt32>
    private let linear: UnsafeMutablePointer<Float>   // 3 per palette entry
    private static let cacheSize = 1 << 14
    /// Proportion resolution: 64 levels, one per cell of the 8×8 Bayer matrix.
    static let levels = 64

    init(quantizer: PaletteQuantizer) {
        self.quantizer = quantizer
        keys = .allocate(capacity: Self.cacheSize)
        keys.initialize(repeating: UInt32.max, count: Self.cacheSize)
        plans = .allocate(capacity: Self.cacheSize)
        plans.initialize(repeating: 0, count: Self.cacheSize)
        linear = .allocate(capacity: 256 * 3)
        let lin = SRGBTables.shared.toLinear
        for i in 0..<256 {
            let (r, g, b) = quantizer.color(of: UInt8(i))
            linear[i * 3] = lin[Int(r)]; linear[i * 3 + 1] = lin[Int(g)]; linear[i * 3 + 2] = lin[Int(b)]
        }
    }

    deinit { keys.deallocate(); plans.deallocate(); linear.deallocate() }

    /// The palette index shown for colour (r, g, b) at a pixel whose threshold is `level`
    /// (0..<64, from the Bayer matrix).
    @inline(__always)
    func index(_ r: UInt8, _ g: UInt8, _ b: UInt8, level: Int) -> UInt8 {
        let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        let slot = Int((key &* 0x9E37_79B1) >> 18)
        var plan = plans[slot]
        if keys[slot] != key {
            plan = makePlan(r, g, b)
            keys[slot] = key; plans[slot] = plan
        }
        // plan: first | second << 8 | share << 16 (cells out of 64 that show the second).
        return level < Int(plan >> 16) ? UInt8(plan >> 8 & 0xFF) : UInt8(plan & 0xFF)
    }

    private func makePlan(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt32 {
        let lin = SRGBTables.shared.toLinear
        let tr = lin[Int(r)], tg = lin[Int(g)], tb = lin[Int(b)]
        let first = Int(quantizer.index(r, g, b))
        let p = linear + first * 3
        let er = tr - p[0], eg = tg - p[1], eb = tb - p[2]
        var bestD = er * er + eg * eg + eb * eb, best = first, bestT: Float = 0
        for i in quantizer.candidates where i != first {
            let q = linear + i * 3
            let dr = q[0] - p[0], dg = q[1] - p[1], db = q[2] - p[2]
            let len2 = dr * dr + dg * dg + db * db
            guard len2 > 0 else { continue }
            // Best proportion of entry i along the segment, in 1/64 steps (what the pattern can show).
            let t = (er * dr + eg * dg + eb * db) / len2
            let tq = (min(max(t, 0), 1) * Float(Self.levels)).rounded() / Float(Self.levels)
            let xr = er - tq * dr, xg = eg - tq * dg, xb = eb - tq * db
            let d = xr * xr + xg * xg + xb * xb
            if d < bestD { bestD = d; best = i; bestT = tq }
        }
        let share = UInt32((bestT * Float(Self.levels)).rounded())
        return UInt32(first) | UInt32(best) << 8 | share << 16
    }
}
