import CAVIF
import Foundation
import Testing
@testable import AnimatedCore

/// AVIF through libavif 0.11 against Chromium 156's ImageDecoder (frames saved by
/// `Benchmarks/chromium-reference.py --write-png` in Tests/Fixtures/avif/expected).
///
/// Every avifenc fixture is identical, stills with alpha and sequences included: Chromium 156
/// reads a still's alpha plane, and the colour of a sequence without an edit list, as limited
/// range whatever the file says (measured; `AVIFDecoder` does the same), and cuts samples of
/// more than 8 bits its own way (`AVIFHighDepth`). libavif's own animation differs in its inter
/// frames (dav1d versions, at most 4).
@Suite struct AVIFDecoderTests {
    static let root = Corpus.fixtures + "/avif"

    static func compare(_ path: String, expected id: String) throws -> (frames: Int, worst: Int) {
        let comp = try Compositor(decoder: try AnimationLoader.open(path: path))
        let dir = root + "/expected/" + id
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".png") }.sorted()
        #expect(files.count == comp.info.frameCount, "\(id)")
        var worst = 0
        for (i, name) in files.enumerated() where i < comp.info.frameCount {
            let want = try Corpus.expectedFrame(dir + "/" + name)
            let got = comp.frame(at: i).snapshot()
            #expect(got.count == want.pixels.count)
            for k in 0..<min(got.count, want.pixels.count) { worst = max(worst, abs(Int(got[k]) - Int(want.pixels[k]))) }
        }
        return (files.count, worst)
    }

    @Test(arguments: ["still-444", "still-lossless", "still-grey", "libavif/white_1x1", "still-alpha-444",
                      "anim-alpha-444", "anim-lossless", "anim-420",
                      // More than 8 bits (AVIFHighDepth): libavif 0.11 alone was 1 to 4 levels off
                      // (the premultiplied one up to 50, its colour divided by another alpha).
                      "still-10bit-alpha-420", "still-12bit-alpha-444", "still-12bit-422", "still-10bit-grey-alpha",
                      "anim-12bit-alpha-444", "still-10bit-premultiplied-444"])
    func framesEqualChromium(_ name: String) throws {
        let id = String(name.split(separator: "/").last!)
        let r = try Self.compare(Self.root + "/\(name).avif", expected: id)
        #expect(r.frames >= 1 && r.worst == 0, "\(id): largest difference \(r.worst)")
    }

    @Test func measuredDifferences() throws {
        // libavif's own animation (libavif 1.x wrote it, with an edit list): frame 0 identical,
        // inter frames within 4 (Chromium's dav1d is newer).
        #expect(try Self.compare(Self.root + "/libavif/colors-animated-8bpc.avif", expected: "colors-animated-8bpc").worst <= 4)
    }

    /// Which conversion each depth and subsampling gets (CrabbyAvif's choice of libyuv function).
    @Test func highDepthConversions() {
        typealias H = AVIFHighDepth
        let bt601 = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_BT601)
        let srgb = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        func rule(_ depth: Int, _ format: avifPixelFormat, alpha: Bool = true, premultiplied: Bool = false,
                  matrix: avifMatrixCoefficients = bt601) -> H.Conversion {
            H.conversion(depth: depth, format: format, matrix: matrix, primaries: srgb, alpha: alpha, premultiplied: premultiplied)
        }
        #expect(rule(8, AVIF_PIXEL_FORMAT_YUV444) == .libavif)
        #expect(rule(8, AVIF_PIXEL_FORMAT_YUV400) == .libavif)
        for format in [AVIF_PIXEL_FORMAT_YUV420, AVIF_PIXEL_FORMAT_YUV422, AVIF_PIXEL_FORMAT_YUV444] {
            #expect(rule(10, format) == .alphaShifted(2))
            #expect(rule(10, format, alpha: false) == .libavif)
            #expect(rule(10, format, premultiplied: true) == .alphaShifted(2))
        }
        #expect(rule(12, AVIF_PIXEL_FORMAT_YUV420) == .libavif)
        #expect(rule(12, AVIF_PIXEL_FORMAT_YUV422) == .downshifted(4, shiftsAlpha: true))
        #expect(rule(12, AVIF_PIXEL_FORMAT_YUV444, alpha: false) == .downshifted(4, shiftsAlpha: true))
        #expect(rule(10, AVIF_PIXEL_FORMAT_YUV400) == .downshifted(2, shiftsAlpha: false))
        #expect(rule(12, AVIF_PIXEL_FORMAT_YUV400) == .downshifted(4, shiftsAlpha: false))
        // Matrices libyuv has no constants for go through CrabbyAvif's own code (libavif's results).
        let identity = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_IDENTITY)
        #expect(rule(12, AVIF_PIXEL_FORMAT_YUV444, matrix: identity) == .libavif)
        #expect(rule(10, AVIF_PIXEL_FORMAT_YUV444, matrix: identity) == .libavif)
        #expect(rule(10, AVIF_PIXEL_FORMAT_YUV400, matrix: identity) == .downshifted(2, shiftsAlpha: false))
        #expect(rule(12, AVIF_PIXEL_FORMAT_YUV444, matrix: avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_YCGCO)) == .libavif)
    }

    @Test func alphaStretchIsCrabbyAvifsLimitedToFull() throws {
        // 16...235 onto 0...255, rounded as libavif's and CrabbyAvif's limited_to_full_y.
        #expect(animplay_avif_load() == nil)
        let image = animplay_avifImageCreate(4, 1, 8, AVIF_PIXEL_FORMAT_YUV444)!
        defer { animplay_avifImageDestroy(image) }
        #expect(animplay_avifImageAllocatePlanes(image, AVIF_PLANES_A.rawValue) == AVIF_RESULT_OK)
        let values: [UInt8] = [7, 40, 128, 240]
        for (x, v) in values.enumerated() { image.pointee.alphaPlane[x] = v }
        AVIFDecoder.stretchAlpha(image)
        #expect((0..<4).map { image.pointee.alphaPlane[$0] } == [0, 28, 130, 255])
    }

    /// The colour track's edit list, from real files: avifenc 0.11 writes none (forever, as
    /// Chromium shows it); libavif 1.x's colors-animated-8bpc has one without the repeat flag
    /// (once, as Chromium shows it).
    @Test func editListFromRealFiles() throws {
        func edits(_ path: String) throws -> AVIFEditList? {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            return bytes.withUnsafeBytes { AVIFEditList.read($0) }
        }
        #expect(try edits(Self.root + "/anim-420.avif") == AVIFEditList(present: false, plays: 0))
        #expect(try edits(Self.root + "/libavif/colors-animated-8bpc.avif") == AVIFEditList(present: true, plays: 1))
        #expect(try edits(Self.root + "/still-444.avif") == nil)
        let info = try AnimationLoader.open(path: Self.root + "/libavif/colors-animated-8bpc.avif").info
        #expect(info.plays == 1)
    }

    @Test func gridPrimaryItem() throws {
        func grid(_ name: String) throws -> Bool {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.root + "/" + name)))
            return bytes.withUnsafeBytes { AVIFBoxes.primaryIsGrid($0) }
        }
        #expect(try grid("libavif/sofa_grid1x5_420.avif"))          // libavif's 1x5 grid
        #expect(try !grid("still-444.avif") && !grid("anim-420.avif") && !grid("truncated.avif"))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.root + "/libavif/sofa_grid1x5_420.avif")))
        for n in Swift.stride(from: 0, to: 2000, by: 7) { _ = Array(bytes[0..<n]).withUnsafeBytes { AVIFBoxes.primaryIsGrid($0) } }
    }

    /// The repeat flag: ceil(track duration / segment duration) plays; an indefinite track
    /// duration repeats forever (libavif 1.x's rules). Boxes built here: moov/trak/{tkhd,edts/elst}.
    @Test func editListRepeats() {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let n = body.count + 8
            return [UInt8(n >> 24), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + Array(type.utf8) + body
        }
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func file(track: UInt32, segment: UInt32, flags: UInt8) -> [UInt8] {
            let tkhd = box("tkhd", [0, 0, 0, 3] + be32(0) + be32(0) + be32(1) + be32(0) + be32(track) + [UInt8](repeating: 0, count: 60))
            let elst = box("elst", [0, 0, 0, flags] + be32(1) + be32(segment) + be32(0) + [0, 1, 0, 0])
            return box("ftyp", Array("avis".utf8) + be32(0)) + box("moov", box("trak", tkhd + box("edts", elst)))
        }
        func plays(_ f: [UInt8]) -> Int? { f.withUnsafeBytes { AVIFEditList.read($0)?.plays } }
        #expect(plays(file(track: 300, segment: 100, flags: 1)) == 3)
        #expect(plays(file(track: 301, segment: 100, flags: 1)) == 4)
        #expect(plays(file(track: 0xFFFF_FFFF, segment: 100, flags: 1)) == 0)
        #expect(plays(file(track: 300, segment: 100, flags: 0)) == 1)
        #expect(plays(file(track: 300, segment: 0, flags: 1)) == 0)
        // Truncated anywhere: never a crash, nil or a count.
        let whole = file(track: 300, segment: 100, flags: 1)
        for n in 0..<whole.count { _ = plays(Array(whole[0..<n])) }
    }

    @Test func animationTimingAndAlpha() throws {
        let info = try AnimationLoader.open(path: Self.root + "/anim-alpha-444.avif").info
        #expect(info.format == .avif && info.width == 64 && info.height == 48)
        #expect(info.frames.map(\.delayMs) == [100, 100, 250, 250, 40, 40])
        #expect(info.plays == 0)                         // no edit list: forever, as in Chromium
        #expect(info.frames.allSatisfy { $0.hasAlpha && $0.keyframe && $0.blend == .source })
        let comp = try Compositor(decoder: try AnimationLoader.open(path: Self.root + "/anim-alpha-444.avif"))
        let f = comp.frame(at: 3).snapshot()
        #expect(f[3] == 0)                               // top-left corner is transparent
        // Out of order and back again: libavif seeks from the keyframe; the frames are the same.
        let again = comp.frame(at: 1).snapshot(), third = comp.frame(at: 3).snapshot()
        #expect(third == f && again != f)
        let still = try AnimationLoader.open(path: Self.root + "/still-alpha-444.avif").info
        #expect(still.frameCount == 1 && still.plays == 1 && still.frames[0].hasAlpha && still.frames[0].delayMs == 0)
    }

    @Test func damagedFramesAreTheSameInAnyOrder() throws {
        // Found by the fuzzer: frames 1 and 2 fail in dav1d (their alpha plane). A failure left
        // libavif's sequence half way, and the next frame asked for depended on what had been
        // asked before; every pair of requests must give the frames sequential playing gives.
        let path = Self.root + "/damaged/alpha-plane-fails.avif"
        let sequential = try Compositor(decoder: try AnimationLoader.open(path: path))
        let count = sequential.info.frameCount
        #expect(count == 3)
        let frames = (0..<count).map { sequential.frame(at: $0).snapshot() }
        for first in 0..<count {
            for second in 0..<count {
                let comp = try Compositor(decoder: try AnimationLoader.open(path: path))
                _ = comp.frame(at: first)
                let same = comp.frame(at: second).snapshot() == frames[second]
                #expect(same, "frame \(second) after \(first)")
            }
        }
    }

    @Test func truncatedAndLimits() throws {
        let e = #expect(throws: AnimatedError.self) { try AnimationLoader.open(path: Self.root + "/truncated.avif") }
        #expect(e?.kind == .invalid)
        var limits = DecodeLimits.default
        limits.maxPixels = 1000
        var noScaling = DecodeOptions(limits: limits)
        noScaling.scaleDownStills = false                // else scaled down (ScaledStillTests)
        let big = #expect(throws: AnimatedError.self) {
            try AnimationLoader.open(path: Self.root + "/still-444.avif", options: noScaling)
        }
        #expect(big != nil)
        limits = .default
        limits.maxFrames = 3
        let many = #expect(throws: AnimatedError.self) {
            try AnimationLoader.open(path: Self.root + "/anim-alpha-444.avif", options: DecodeOptions(limits: limits))
        }
        #expect(many != nil)
    }

    @Test func sniffsBrands() {
        let coder = AVIFCoder()
        func head(_ major: String, _ compatible: [String]) -> [UInt8] {
            let size = 16 + 4 * compatible.count
            return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
                + compatible.flatMap { Array($0.utf8) } + [0, 0, 0, 8] + Array("free".utf8)
        }
        #expect(coder.canDecode(head: head("avif", ["mif1"])))
        #expect(coder.canDecode(head: head("mif1", ["miaf", "avis"])))
        #expect(!coder.canDecode(head: head("heic", ["mif1", "heix"])))
        #expect(!coder.canDecode(head: head("isom", ["mp41"]) ))
        #expect(!coder.canDecode(head: Array("ftypavif".utf8)))
    }
}
