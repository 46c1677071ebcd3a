#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// sRGB ↔ linear-light lookup tables, built once and shared read-only by every thread.
///
/// Scaling averages light, not sRGB code values: averaging code values darkens fine detail and
/// makes moving edges shimmer. The decode table maps the 256 code values to linear floats; the
/// encode table maps a linear value quantised to `encodeSteps` back to the nearest code value
/// (fine enough that every code value survives a round trip exactly).
package final class SRGBTables: @unchecked Sendable {
    package static let shared = SRGBTables()

    /// 2^14 steps: the first sRGB step (1/255) is 0.0003 in linear light, 5 steps here.
    package static let encodeSteps = 16384

    /// 256 linear values in 0...1.
    package let toLinear: UnsafeMutablePointer<Float>
    /// 256 linear values times `encodeSteps` (a power of 2: exactly `toLinear` scaled), so that
    /// sums of them are already in `toSRGB` index units (`RowResampler`).
    package let toLinearSteps: UnsafeMutablePointer<Float>
    /// 256 code values divided by 255 (for averaging code values with the same loops).
    package let unit: UnsafeMutablePointer<Float>
    /// `encodeSteps + 1` code values indexed by `Int(linear * encodeSteps + 0.5)`, then 255
    /// up to `paddedMask`: an index masked with it is always inside (`RowResampler`).
    package let toSRGB: UnsafeMutablePointer<UInt8>
    /// `toSRGB` holds `paddedMask + 1` entries.
    package static let paddedMask: UInt32 = 0x7FFF

    private init() {
        toLinear = .allocate(capacity: 256)
        for v in 0..<256 { toLinear[v] = Float(SRGBTables.decode(Double(v) / 255)) }
        toLinearSteps = .allocate(capacity: 256)
        for v in 0..<256 { toLinearSteps[v] = toLinear[v] * Float(SRGBTables.encodeSteps) }
        unit = .allocate(capacity: 256)
        for v in 0..<256 { unit[v] = Float(v) / 255 }
        let n = SRGBTables.encodeSteps
        let padded = Int(SRGBTables.paddedMask) + 1
        toSRGB = .allocate(capacity: padded)
        // Entry i is `SRGBTables.code(i)`; the entries are filled a code value's stretch at a
        // time, each stretch's end found near where the decoded midpoint to the next code value
        // falls and checked against `code` itself: about 3 `pow`s a code value instead of one
        // an entry (16 385 took 0.5 ms, before the first scaled frame of every run).
        var i = 0
        for v in 0..<256 {
            var end = n + 1
            if v < 255 {
                let guess = Int((SRGBTables.decode((Double(v) + 0.5) / 255) * Double(n)).rounded(.up))
                end = min(n + 1, max(i, guess))
                while end > i && SRGBTables.code(end - 1, of: n) > v { end -= 1 }
                while end <= n && SRGBTables.code(end, of: n) <= v { end += 1 }
            }
            (toSRGB + i).initialize(repeating: UInt8(v), count: end - i)
            i = end
        }
        (toSRGB + n + 1).initialize(repeating: 255, count: padded - n - 1)
    }

    /// The code value nearest to linear light `i / steps`.
    static func code(_ i: Int, of steps: Int) -> Int {
        Int(min(255, max(0, (encode(Double(i) / Double(steps)) * 255).rounded())))
    }

    /// sRGB transfer function (IEC 61966-2-1), code value in 0...1 to linear light.
    package static func decode(_ c: Double) -> Double {
        c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// Linear light in 0...1 to an sRGB value in 0...1.
    package static func encode(_ l: Double) -> Double {
        l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055
    }

    /// Linear light (clamped to 0...1) to the nearest code value.
    @inlinable @inline(__always)
    package func srgb(fromLinear l: Float) -> UInt8 {
        let i = Int(min(max(l, 0), 1) * Float(SRGBTables.encodeSteps) + 0.5)
        return toSRGB[i]
    }
}
