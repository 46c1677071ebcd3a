import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal

/// `Zlib.compressInHalves`: one valid zlib stream (header, both halves' blocks, Adler-32 of the
/// whole) that inflates to the input, as `Zlib.compress` does.
@Suite struct OutputZlibHalvesTests {
    /// Runs of one byte and stretches of noise, so that both halves have matches and literals.
    static func bytes(_ n: Int, seed: UInt32) -> [UInt8] {
        var x = seed | 1
        var out = [UInt8](repeating: 0, count: n)
        var i = 0
        while i < n {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            let run = Int(x % 900) + 1
            let noisy = x & 1 == 0
            for k in i..<min(n, i + run) {
                if noisy { x ^= x << 13; x ^= x >> 17; x ^= x << 5 }
                out[k] = UInt8(truncatingIfNeeded: noisy ? x : x >> 8)
            }
            i += run
        }
        return out
    }

    /// Sizes about the threshold (one below it goes to `compress`), odd ones, and other levels.
    static let cases: [(Int, Int32)] = {
        let t = Zlib.halvesThreshold
        return [(t - 1, 1), (t, 1), (t + 1, 1), (3 << 20, 1), (t + 7, 6), (t + 7, 9)]
    }()

    @Test(arguments: cases)
    func halvesInflateToTheInputWithTheHeaderOfOneStream(size: Int, level: Int32) {
        let input = Self.bytes(size, seed: UInt32(size))
        let halves = input.withUnsafeBytes { Zlib.compressInHalves($0, level: level) }
        let whole = input.withUnsafeBytes { Zlib.compress($0, level: level) }
        // zlib's uncompress checks the Adler-32 trailer too.
        #expect(Zlib.decompress(halves, limit: size) == input)
        #expect(Array(halves.prefix(2)) == Array(whole.prefix(2)), "the header compress2 writes at level \(level)")
        // A few hundred bytes more than one stream at most: the halves share no history.
        #expect(halves.count <= whole.count + 1024, "\(halves.count) vs \(whole.count)")
    }

    @Test func aDamagedTrailerIsRefused() {
        var packed = Self.bytes(Zlib.halvesThreshold, seed: 3).withUnsafeBytes { Zlib.compressInHalves($0, level: 1) }
        packed[packed.count - 1] ^= 1
        #expect(Zlib.decompress(packed, limit: Zlib.halvesThreshold) == nil)
    }

    @Test func aLargeKittyFrameIsTheScaledFramesRGB() {
        let w = 800, h = 600     // 1.44 MB of RGB: compressed in halves
        let canvas = Canvas(width: w, height: h)
        let noise = Self.bytes(w * h * 4, seed: 11)
        for i in 0..<(w * h * 4) { canvas.pixels[i] = i % 4 == 3 ? 255 : noise[i] }
        let size = RenderSize(width: w, height: h)
        let frame = KittyFramePreparer().scale(canvas, index: 0, to: size)
        #expect(frame.channels == 3)
        let rgba = AreaAverageScaler().scale(canvas, index: 0, to: size).pixels
        let rgb = (0..<(w * h * 4)).compactMap { $0 % 4 == 3 ? nil : rgba[$0] }
        #expect(Zlib.decompress(frame.payload, limit: w * h * 3) == rgb)
    }

    /// Opaque RGBA of `pixels` pixels with the RGB of `bytes`.
    static func opaque(_ pixels: Int, seed: UInt32) -> (rgba: [UInt8], rgb: [UInt8]) {
        let rgb = bytes(pixels * 3, seed: seed)
        var rgba = [UInt8](repeating: 255, count: pixels * 4)
        for i in 0..<pixels { for c in 0..<3 { rgba[i * 4 + c] = rgb[i * 3 + c] } }
        return (rgba, rgb)
    }

    /// Pixel counts whose RGB is about the threshold, odd ones (the halves split on a pixel,
    /// one more in the second), one not a multiple of the 8192-pixel chunk.
    @Test(arguments: [Zlib.halvesThreshold / 3 + 1, Zlib.halvesThreshold / 3 + 2, 8192 * 50 + 3, 1 << 20])
    func rgbMadeInHalvesInflatesToTheRGB(pixels: Int) {
        let (rgba, rgb) = Self.opaque(pixels, seed: UInt32(pixels))
        guard let packed = rgba.withUnsafeBytes({ Zlib.compressOpaqueRGBInHalves($0, level: 1) }) else {
            Issue.record("refused an opaque frame of \(pixels) pixels")
            return
        }
        #expect(Zlib.decompress(packed, limit: rgb.count) == rgb)
        let whole = rgb.withUnsafeBytes { Zlib.compress($0, level: 1) }
        #expect(Array(packed.prefix(2)) == Array(whole.prefix(2)))
        #expect(packed.count <= whole.count + 1024, "\(packed.count) vs \(whole.count)")
    }

    @Test func rgbInHalvesRefusesSmallOrTranslucentFrames() {
        let small = Self.opaque(Zlib.halvesThreshold / 3 - 1, seed: 5).rgba
        #expect(small.withUnsafeBytes { Zlib.compressOpaqueRGBInHalves($0, level: 1) } == nil)
        let n = 8192 * 50 + 3
        // The pixel that is not opaque: in the first half, in the second, the very last.
        for k in [7, n / 2 + 9000, n - 1] {
            var rgba = Self.opaque(n, seed: 6).rgba
            rgba[k * 4 + 3] = 254
            #expect(rgba.withUnsafeBytes { Zlib.compressOpaqueRGBInHalves($0, level: 1) } == nil, "pixel \(k)")
            #expect(!rgba.withUnsafeBytes { KittyFramePreparer.allOpaque($0) }, "pixel \(k)")
            rgba[k * 4 + 3] = 255
            #expect(rgba.withUnsafeBytes { KittyFramePreparer.allOpaque($0) }, "pixel \(k)")
        }
    }

    @Test func aLargeTranslucentKittyFrameKeepsItsAlpha() {
        let w = 800, h = 600
        let canvas = Canvas(width: w, height: h)
        let noise = Self.bytes(w * h * 4, seed: 12)
        for i in 0..<(w * h * 4) { canvas.pixels[i] = i % 4 == 3 ? 255 : noise[i] }
        canvas.pixels[(w * h - 1) * 4 + 3] = 128
        let frame = KittyFramePreparer().scale(canvas, index: 0, to: RenderSize(width: w, height: h))
        #expect(frame.channels == 4)
        #expect(Zlib.decompress(frame.payload, limit: w * h * 4) == Array(canvas.pixels))
    }
}
