import AnimatedCore

/// OKLab coordinates of 24-bit colours, memoised (direct-mapped, 4096 entries): the cell
/// writer compares each changed cell's colours with what is on screen and in the SGR state.
final class OKLabCache {
    private static let size = 4096
    private let keys: UnsafeMutablePointer<UInt32>
    private let values: UnsafeMutablePointer<Float>   // 3 per entry

    init() {
        keys = .allocate(capacity: Self.size)
        keys.initialize(repeating: UInt32.max, count: Self.size)
        values = .allocate(capacity: Self.size * 3)
        values.initialize(repeating: 0, count: Self.size * 3)
    }

    deinit { keys.deallocate(); values.deallocate() }

    /// Squared OKLab distance between two 0xRRGGBB colours.
    @inline(__always)
    func distanceSquared(_ a: UInt32, _ b: UInt32) -> Float {
        // Copy the first colour out: looking up the second may reuse the same cache slot.
        let p = lab(a)
        let pl = p[0], pa = p[1], pb = p[2]
        let q = lab(b)
        let dl = pl - q[0], da = pa - q[1], db = pb - q[2]
        return dl * dl + da * da + db * db
    }

    @inline(__always)
    func lab(_ c: UInt32) -> UnsafeMutablePointer<Float> {
        let slot = Int((c &* 0x9E37_79B1) >> 20)
        let v = values + slot * 3
        if keys[slot] != c {
            let l = PaletteQuantizer.oklab(UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF))
            v[0] = l.0; v[1] = l.1; v[2] = l.2
            keys[slot] = c
        }
        return v
    }
}
