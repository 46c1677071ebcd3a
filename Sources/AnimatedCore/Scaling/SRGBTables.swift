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
        for i in 0...n {
            let s = SRGBTables.encode(Double(i) / Double(n)) * 255
            toSRGB[i] = UInt8(min(255, max(0, s.rounded())))
        }
        (toSRGB + n + 1).initialize(repeating: 255, count: padded - n - 1)
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
