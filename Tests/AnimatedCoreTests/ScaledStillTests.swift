import Foundation
import Testing
@testable import AnimatedCore

/// Stills larger than the limits are decoded straight to a smaller size: PNG row by row into a
/// box average (never holding the full image), JPEG with libjpeg's DCT scaling, WebP with
/// libwebp's rescaler.
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

    /// libwebp's rescaler (`use_scaling`) averages each output pixel's area of the full image
    /// in gamma space; the full-size decode averaged by hand over the same 2×2 boxes.
    @Test(arguments: ["still_lossy", "still_lossy_alpha", "still_lossless", "still_lossless_alpha"])
    func webpOverTheLimitsIsDecodedScaled(_ name: String) throws {
        let path = Corpus.fixtures + "/webp/\(name).webp"
        let full = try Compositor(decoder: try AnimationLoader.open(path: path)).frame(at: 0)
        let (w, h) = (full.width, full.height)
        let decoder = try AnimationLoader.open(path: path, options: Self.options(maxPixels: w * h / 4 + 8))
        #expect(decoder.info.scaledFrom == ImageSize(width: w, height: h))
        #expect(decoder.info.width == w / 2 && decoder.info.height == h / 2 && decoder.info.format == .webp)
        let small = try Compositor(decoder: decoder).frame(at: 0).snapshot()
        let src = full.snapshot()
        var worst = 0, total = 0, count = 0
        for oy in 0..<(h / 2) {
            for ox in 0..<(w / 2) {
                var c = [0.0, 0.0, 0.0], a = 0.0
                for (x, y) in [(2 * ox, 2 * oy), (2 * ox + 1, 2 * oy), (2 * ox, 2 * oy + 1), (2 * ox + 1, 2 * oy + 1)] {
                    let p = (y * w + x) * 4, al = Double(src[p + 3])
                    for k in 0..<3 { c[k] += Double(src[p + k]) * al }
                    a += al
                }
                let q = (oy * (w / 2) + ox) * 4
                worst = max(worst, abs(Int(small[q + 3]) - Int((a / 4).rounded())))
                if a > 255 {
                    for k in 0..<3 {
                        let d = abs(Int(small[q + k]) - Int((c[k] / a).rounded()))
                        worst = max(worst, d); total += d; count += 1
                    }
                }
            }
        }
        // Lossless: the box average (alpha-weighted; libwebp rounds premultiplied values, ≤ 3).
        // Lossy: libwebp rescales the Y, U and V planes before converting them (no chroma
        // upsampling at the smaller size), so edges of strong colour differ from averaging the
        // RGB result (this 32×24 image: mean 3.7, at most 46 at a red/green edge).
        let mean = Double(total) / Double(max(count, 1))
        let lossless = name.hasPrefix("still_lossless")
        #expect(lossless ? worst <= 3 : mean < 4, "\(name): largest difference \(worst), mean \(mean)")
    }

    @Test func webpScalingRespectsLibwebpsOwnMemory() throws {
        // A lossless WebP keeps its whole ARGB image inside libwebp even when the output is scaled.
        let path = Corpus.fixtures + "/webp/still_lossless.webp"
        var options = Self.options(maxPixels: 100)
        options.limits.maxDecodedBytes = 1200
        let e = #expect(throws: AnimatedError.self) { try AnimationLoader.open(path: path, options: options) }
        #expect(e?.kind == .limitExceeded)
        #expect(e?.message.contains("lossless WebP needs 1 KiB inside libwebp") == true, "\(e?.message ?? "")")
        // Animated WebPs are refused as before; so is a still when scaling is off.
        let anim = Corpus.fixtures + "/webp/animated.webp"
        let info = try AnimationLoader.open(path: anim).info
        let a = #expect(throws: AnimatedError.self) {
            try AnimationLoader.open(path: anim, options: Self.options(maxPixels: info.width * info.height - 1))
        }
        #expect(a?.kind == .limitExceeded)
        var off = Self.options(maxPixels: 100)
        off.scaleDownStills = false
        #expect(throws: AnimatedError.self) { try AnimationLoader.open(path: path, options: off) }
    }

    /// The largest difference between `small` and a 2×2 box average of `full` in linear light,
    /// alpha-weighted (what `BoxDownscaler` computes), worked out in doubles.
    static func linearBoxDifference(full: [UInt8], width w: Int, height h: Int, small: [UInt8]) -> Int {
        func lin(_ v: UInt8) -> Double { SRGBTables.decode(Double(v) / 255) }
        let (sw, sh) = ((w + 1) / 2, (h + 1) / 2)
        var worst = 0
        for oy in 0..<sh {
            for ox in 0..<sw {
                var c = [0.0, 0.0, 0.0], a = 0.0, n = 0.0
                for y in (2 * oy)..<min(2 * oy + 2, h) {
                    for x in (2 * ox)..<min(2 * ox + 2, w) {
                        let p = (y * w + x) * 4, al = Double(full[p + 3]) / 255
                        for k in 0..<3 { c[k] += lin(full[p + k]) * al }
                        a += al; n += 1
                    }
                }
                let q = (oy * sw + ox) * 4
                worst = max(worst, abs(Int(small[q + 3]) - Int((a / n * 255).rounded())))
                if a > 0 {
                    for k in 0..<3 { worst = max(worst, abs(Int(small[q + k]) - Int((SRGBTables.encode(c[k] / a) * 255).rounded()))) }
                }
            }
        }
        return worst
    }

    /// libavif 0.11 has no scaler: dav1d decodes the full size, strips of rows are converted
    /// and box-averaged. 4:4:4 has no chroma to upsample, so strips give the whole image's pixels.
    @Test(arguments: ["still-444", "still-alpha-444", "still-lossless", "still-grey"])
    func avifOverTheLimitsIsBoxAveragedInStrips(_ name: String) throws {
        let path = Corpus.fixtures + "/avif/\(name).avif"
        let full = try Compositor(decoder: try AnimationLoader.open(path: path)).frame(at: 0)
        let decoder = try AnimationLoader.open(path: path, options: Self.options(maxPixels: 1000))
        #expect(decoder.info.scaledFrom == ImageSize(width: 64, height: 48))
        #expect(decoder.info.width == 32 && decoder.info.height == 24 && decoder.info.format == .avif)
        let small = try Compositor(decoder: decoder).frame(at: 0).snapshot()
        let worst = Self.linearBoxDifference(full: full.snapshot(), width: 64, height: 48, small: small)
        #expect(worst <= 1, "\(name): largest difference \(worst)")
    }

    @Test func avifScalingRespectsDav1dsMemoryAndAnimations() throws {
        var options = Self.options(maxPixels: 1000)
        options.limits.maxDecodedBytes = 64 * 48 * 3 - 1       // 4:4:4 planes: 3 bytes a pixel
        let e = #expect(throws: AnimatedError.self) {
            try AnimationLoader.open(path: Corpus.fixtures + "/avif/still-444.avif", options: options)
        }
        #expect(e?.kind == .limitExceeded && e?.message.contains("dav1d needs") == true, "\(e?.message ?? "")")
        let anim = #expect(throws: AnimatedError.self) {
            try AnimationLoader.open(path: Corpus.fixtures + "/avif/anim-420.avif", options: Self.options(maxPixels: 1000))
        }
        #expect(anim?.kind == .limitExceeded)
    }

    @Test func factorFitsTheBudget() {
        let limits = DecodeLimits(maxDimension: 65535, maxPixels: 1 << 23, maxFrames: 10, maxDecodedBytes: 1 << 29)
        #expect(StillScale.boxFactor(width: 20000, height: 20000, limits: limits, workingCopies: 2) == 7)   // 2858²
        #expect(StillScale.boxFactor(width: 9000, height: 9000, limits: limits, workingCopies: 2) == 4)     // 2250²
        #expect(StillScale.boxFactor(width: 1 << 20, height: 1, limits: limits, workingCopies: 2) == 17)  // 65535 a side
    }
}
