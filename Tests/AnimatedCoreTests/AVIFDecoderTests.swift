import Foundation
import Testing
@testable import AnimatedCore

/// AVIF through libavif 0.11 against Chromium 156's ImageDecoder (frames saved by
/// `Benchmarks/chromium-reference.py --write-png` in Tests/Fixtures/avif/expected).
///
/// Opaque 8-bit stills (4:4:4, lossless, 4:0:0) are identical. Files whose alpha plane or whose
/// sequence track has no `colr` box of its own are not: Chromium's libavif takes the range from
/// the AV1 sequence header (limited, as avifenc 0.11 writes it) and stretches those samples, while
/// libavif 0.11 reads them as full range (as avifenc meant them); the largest difference is
/// measured here so that a change either way shows.
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

    @Test(arguments: ["still-444", "still-lossless", "still-grey", "libavif/white_1x1"])
    func opaqueStillsEqualChromium(_ name: String) throws {
        let id = String(name.split(separator: "/").last!)
        let r = try Self.compare(Self.root + "/\(name).avif", expected: id)
        #expect(r.frames == 1 && r.worst == 0, "\(id): largest difference \(r.worst)")
    }

    @Test func measuredDifferences() throws {
        // Alpha plane: limited-range stretch in Chromium (max 16 at alpha 153 → 160).
        #expect(try Self.compare(Self.root + "/anim-alpha-444.avif", expected: "anim-alpha-444").worst <= 16)
        // Sequence track: Chromium stretches the colour too (240 → 255).
        #expect(try Self.compare(Self.root + "/anim-lossless.avif", expected: "anim-lossless").worst <= 20)
        // libavif's own animation (libavif 1.x wrote it): frame 0 identical, inter frames within 4.
        #expect(try Self.compare(Self.root + "/libavif/colors-animated-8bpc.avif", expected: "colors-animated-8bpc").worst <= 4)
    }

    @Test func animationTimingAndAlpha() throws {
        let info = try AnimationLoader.open(path: Self.root + "/anim-alpha-444.avif").info
        #expect(info.format == .avif && info.width == 64 && info.height == 48)
        #expect(info.frames.map(\.delayMs) == [100, 100, 250, 250, 40, 40])
        #expect(info.plays == 0)                         // libavif 0.11 cannot read a repetition count
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
