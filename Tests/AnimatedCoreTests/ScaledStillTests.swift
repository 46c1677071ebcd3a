import Foundation
import Testing
@testable import AnimatedCore

/// Stills larger than the limits are decoded straight to a smaller size: PNG row by row into a
/// box average (never holding the full image), JPEG with libjpeg's DCT scaling.
@Suite struct ScaledStillTests {
    static let sheet = Corpus.fixtures + "/sprites/grid/sheet.png"

    static func options(maxPixels: Int) -> DecodeOptions {
        var limits = DecodeLimits.default
        limits.maxPixels = maxPixels
        return DecodeOptions(limits: limits)
    }

    @Test func pngOverTheLimitsIsBoxAveragedRowByRow() throws {
        let full = try Compositor(decoder: try AnimationLoader.open(path: Self.sheet)).frame(at: 0)
        #expect(full.width == 32 && full.height == 21)
        let decoder = try AnimationLoader.open(path: Self.sheet, options: Self.options(maxPixels: 180))
        #expect(decoder.info.scaledFrom == ImageSize(width: 32, height: 21))
        #expect(decoder.info.width == 16 && decoder.info.height == 11 && decoder.info.format == .png)
        let small = try Compositor(decoder: decoder).frame(at: 0).snapshot()
        // The same box average by hand, in doubles: linear light, alpha-weighted.
        let src = full.snapshot()
        func lin(_ v: UInt8) -> Double { SRGBTables.decode(Double(v) / 255) }
        for oy in 0..<11 {
            for ox in 0..<16 {
                var c = [0.0, 0.0, 0.0], a = 0.0, n = 0.0
                for y in (2 * oy)..<min(2 * oy + 2, 21) {
                    for x in (2 * ox)..<(2 * ox + 2) {
                        let p = (y * 32 + x) * 4, al = Double(src[p + 3]) / 255
                        for k in 0..<3 { c[k] += lin(src[p + k]) * al }
                        a += al; n += 1
                    }
                }
                let q = (oy * 16 + ox) * 4
                #expect(abs(Int(small[q + 3]) - Int((a / n * 255).rounded())) <= 1, "alpha at \(ox),\(oy)")
                if a > 0 {
                    for k in 0..<3 {
                        let want = Int((SRGBTables.encode(c[k] / a) * 255).rounded())
                        #expect(abs(Int(small[q + k]) - want) <= 1, "channel \(k) at \(ox),\(oy)")
                    }
                }
            }
        }
    }

    @Test func refusedWhenScalingIsOffOrTheImageAnimates() throws {
        var off = Self.options(maxPixels: 180)
        off.scaleDownStills = false
        let e = #expect(throws: AnimatedError.self) { try AnimationLoader.open(path: Self.sheet, options: off) }
        #expect(e?.kind == .limitExceeded)
        // An APNG over the limits is refused as before: animations are not scaled.
        let apng = Corpus.fixtures + "/hostile/files/valid.png"
        let info = try AnimationLoader.open(path: apng).info
        #expect(info.format == .apng)
        let a = #expect(throws: AnimatedError.self) {
            try AnimationLoader.open(path: apng, options: Self.options(maxPixels: info.width * info.height - 1))
        }
        #expect(a?.kind == .limitExceeded)
    }

    @Test func factorFitsTheBudget() {
        let limits = DecodeLimits(maxDimension: 65535, maxPixels: 1 << 23, maxFrames: 10, maxDecodedBytes: 1 << 29)
        #expect(StillScale.boxFactor(width: 20000, height: 20000, limits: limits, workingCopies: 2) == 7)   // 2858²
        #expect(StillScale.boxFactor(width: 9000, height: 9000, limits: limits, workingCopies: 2) == 4)     // 2250²
        #expect(StillScale.boxFactor(width: 1 << 20, height: 1, limits: limits, workingCopies: 2) == 17)  // 65535 a side
    }
}
