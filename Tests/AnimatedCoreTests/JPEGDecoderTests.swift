import Foundation
import Testing
@testable import AnimatedCore

/// JPEG stills against Chromium 156: what `createImageBitmap` (the `<img>` path: libjpeg-turbo to
/// RGB, EXIF orientation applied) gives, saved by `Benchmarks/chromium-reference.py --write-png` in
/// Tests/Fixtures/jpeg/expected. Baseline 4:4:4, 4:2:2, 4:2:0, progressive, grey, Adobe CMYK and
/// the eight EXIF orientations must all be identical.
@Suite struct JPEGDecoderTests {
    static let root = Corpus.fixtures + "/jpeg"
    static let cases = ["baseline-444", "baseline-422", "baseline-420", "progressive", "grey", "cmyk-adobe"]
        + (1...8).map { "orient-\($0)" }

    @Test(arguments: cases)
    func equalsChromium(_ id: String) throws {
        let decoder = try AnimationLoader.open(path: Self.root + "/\(id).jpg")
        #expect(decoder.info.format == .jpeg && decoder.info.frameCount == 1 && decoder.info.plays == 1)
        let want = try Corpus.expectedFrame(Self.root + "/expected/\(id).png")
        #expect(decoder.info.width == want.width && decoder.info.height == want.height)
        let got = try Compositor(decoder: decoder).frame(at: 0).snapshot()
        #expect(Corpus.mismatch(got, want.pixels, width: want.width, tolerance: 0) == nil, "\(id)")
    }

    @Test func orientationSwapsTheSides() throws {
        for o in 1...8 {
            let info = try AnimationLoader.open(path: Self.root + "/orient-\(o).jpg").info
            #expect(info.orientation?.rawValue == o)
            #expect((info.width, info.height) == (o >= 5 ? (32, 48) : (48, 32)), "orientation \(o)")
        }
        #expect(try AnimationLoader.open(path: Self.root + "/baseline-444.jpg").info.orientation == .normal)
    }

    @Test func truncatedShowsWhatArrivedAndSaysSo() throws {
        let comp = try Compositor(decoder: try AnimationLoader.open(path: Self.root + "/truncated.jpg"))
        let frame = comp.frame(at: 0).snapshot()
        #expect(comp.problems[0]?.contains("Premature end of JPEG file") == true)
        let full = try Compositor(decoder: try AnimationLoader.open(path: Self.root + "/baseline-444.jpg")).frame(at: 0).snapshot()
        // The first rows decoded as in the whole file; every pixel is opaque.
        #expect(frame[0..<(48 * 4 * 8)] == full[0..<(48 * 4 * 8)])
        #expect(stride(from: 3, to: frame.count, by: 4).allSatisfy { frame[$0] == 255 })
    }

    @Test func largerThanTheLimitsDecodesScaledDown() throws {
        var limits = DecodeLimits.default
        limits.maxPixels = 48 * 32 / 4          // half each side fits
        let decoder = try AnimationLoader.open(path: Self.root + "/orient-6.jpg", options: DecodeOptions(limits: limits))
        #expect(decoder.info.scaledFrom == ImageSize(width: 32, height: 48))
        #expect(decoder.info.width == 16 && decoder.info.height == 24)
        let frame = try Compositor(decoder: decoder).frame(at: 0)
        #expect(frame.width == 16 && frame.height == 24)
        var refuse = DecodeOptions(limits: limits)
        refuse.scaleDownStills = false
        let e = #expect(throws: AnimatedError.self) { try AnimationLoader.open(path: Self.root + "/orient-6.jpg", options: refuse) }
        #expect(e?.kind == .limitExceeded)
    }

    @Test func exifParserIgnoresWhatItCannotRead() {
        func orientation(_ tiff: [UInt8]) -> ExifOrientation { tiff.withUnsafeBytes { ExifOrientation.ofTIFF($0) } }
        let good: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]
        #expect(orientation(good) == .rotate90)
        var little: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 3, 0, 0, 0]
        #expect(orientation(little) == .rotate180)
        little[18] = 9                                     // not 1...8
        #expect(orientation(little) == .normal)
        #expect(orientation(Array(good.prefix(15))) == .normal)        // cut inside the entry
        var huge = good; huge[7] = 0xFF                              // IFD offset past the end
        #expect(orientation(huge) == .normal)
        #expect(orientation([]) == .normal)
    }
}
