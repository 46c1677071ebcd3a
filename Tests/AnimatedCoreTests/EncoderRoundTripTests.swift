import Testing
@testable import AnimatedCore

/// Each encoder's output read back by animplay's own decoders: frames, times, loop count.
@Suite struct EncoderRoundTripTests {
    /// Composited frames and display times of an encoded file.
    static func decode(_ bytes: [UInt8]) throws -> (frames: [[UInt8]], ms: [Double], plays: Int) {
        let decoder = try AnimationLoader.open(ByteSource(bytes: bytes))
        let comp = try Compositor(decoder: decoder)
        let frames = (0..<decoder.info.frameCount).map { comp.frame(at: $0).snapshot() }
        #expect(comp.problems.isEmpty)
        return (frames, (0..<decoder.info.frameCount).map { decoder.info.displayMs(at: $0) }, decoder.info.plays)
    }

    static func encode(_ format: EncodedFormat, _ frames: [Canvas], ms: [Double], plays: Int = 0,
                       options: EncoderOptions = EncoderOptions()) throws -> [UInt8] {
        let sink = MemorySink()
        let enc = try AnimationEncoders.make(format, width: frames[0].width, height: frames[0].height,
                                             plays: plays, options: options, sink: sink)
        for (f, d) in zip(frames, ms) { try enc.add(f, durationMs: d) }
        try enc.finish()
        return sink.bytes
    }

    /// A canvas filled by `pixel(x, y) -> RGBA`.
    static func canvas(_ w: Int, _ h: Int, _ pixel: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> Canvas {
        let c = Canvas(width: w, height: h)
        for y in 0..<h { for x in 0..<w {
            let p = pixel(x, y), i = (y * w + x) * 4
            c.pixels[i] = p.0; c.pixels[i + 1] = p.1; c.pixels[i + 2] = p.2; c.pixels[i + 3] = p.3
        } }
        return c
    }

    /// Frames that exercise every choice: a moving opaque square, pixels turning transparent
    /// again, partial alpha (APNG, WebP), an unchanged frame, a frame like an earlier one.
    static func frames(partialAlpha: Bool) -> [Canvas] {
        (0..<6).map { n in
            canvas(24, 16) { x, y in
                if n == 3 { return (0, 0, 0, 0) }                       // everything cleared
                let inSquare = x >= n * 3 && x < n * 3 + 6 && y >= 4 && y < 10
                if inSquare { return (UInt8(40 * n), 200, UInt8(x * 10), 255) }
                if y == 0 { return (255, 255, 255, partialAlpha ? UInt8(x * 10) : 255) }
                return (0, 0, 0, 0)
            }
        } + [canvas(24, 16) { _, _ in (1, 2, 3, 255) }, canvas(24, 16) { _, _ in (1, 2, 3, 255) }]
    }

    @Test(arguments: [EncodedFormat.apng, .webp])
    func losslessFormatsGiveTheFramesBack(_ format: EncodedFormat) throws {
        let frames = Self.frames(partialAlpha: true)
        let ms: [Double] = [100, 40, 33.3, 250, 20, 70, 90, 60]
        var exact = EncoderOptions()
        exact.keepTransparentColor = true   // WebP: the colour under alpha 0 too (byte for byte)
        let got = try Self.decode(Self.encode(format, frames, ms: ms, plays: 3, options: exact))
        #expect(got.plays == 3)
        let want = frames.map { $0.snapshot() }
        if format == .apng {
            #expect(got.frames == want)
            #expect(zip(got.ms, ms).allSatisfy { abs($0 - $1) <= 0.5 })
        } else {
            // WebPAnimEncoder merges the two identical last frames into one of 150 ms.
            #expect(got.frames == Array(want.dropLast()))
            #expect(got.ms.last == 150)
        }
    }

    @Test func gifIsExactForFramesOfFewColours() throws {
        let frames = Self.frames(partialAlpha: false)
        let got = try Self.decode(Self.encode(.gif, frames, ms: [100, 40, 30, 250, 20, 70, 90, 60], plays: 1))
        #expect(got.plays == 1)
        #expect(got.frames == frames.map { $0.snapshot() })
        #expect(got.ms == [100, 40, 30, 250, 20, 70, 90, 60])
    }

    @Test func gifQuantisesFramesOfManyColours() throws {
        // 64x64 gradients: 4096 colours per frame, changing every frame.
        let frames = (0..<3).map { n in
            Self.canvas(64, 64) { x, y in (UInt8(x * 4), UInt8(y * 4), UInt8(n * 60), 255) }
        }
        let bytes = try Self.encode(.gif, frames, ms: [50, 50, 50])
        let got = try Self.decode(bytes)
        #expect(got.frames.count == 3)
        for (g, w) in zip(got.frames, frames.map { $0.snapshot() }) {
            var worst = 0
            for i in 0..<g.count { worst = max(worst, abs(Int(g[i]) - Int(w[i]))) }
            #expect(worst <= 40, "quantised pixels stay close to the source (worst channel error \(worst))")
        }
    }

    @Test func gifBlendsPartialAlphaOverTheBackground() throws {
        let frame = Self.canvas(4, 1) { x, _ in (255, 0, 0, UInt8(x * 85)) }
        var options = EncoderOptions()
        options.background = (0, 0, 255)
        let got = try Self.decode(Self.encode(.gif, [frame], ms: [100], plays: 1, options: options))
        let p = got.frames[0]
        #expect(Array(p[0..<4]) == [0, 0, 255, 255])
        #expect(Array(p[12..<16]) == [255, 0, 0, 255])
        #expect(p[7] == 255 && p[4] == 85 && p[6] == 170)
    }

    @Test func apngCropsFramesToWhatChanged() throws {
        // A 1-pixel change on a large canvas costs far less than a whole frame.
        let a = Self.canvas(200, 200) { x, y in (UInt8(x), UInt8(y), 7, 255) }
        let b = Self.canvas(200, 200) { x, y in x == 50 && y == 60 ? (0, 0, 0, 255) : (UInt8(x), UInt8(y), 7, 255) }
        let one = try Self.encode(.apng, [a], ms: [100])
        let two = try Self.encode(.apng, [a, b], ms: [100, 100])
        #expect(two.count - one.count < 200)
        #expect(try Self.decode(two).frames == [a.snapshot(), b.snapshot()])
    }

    @Test func encodersReportNoFramesAsAnError() throws {
        for format in EncodedFormat.allCases where format != .webp {
            let enc = try AnimationEncoders.make(format, width: 2, height: 2, plays: 0, options: EncoderOptions(), sink: MemorySink())
            #expect(throws: AnimatedError.self) { try enc.finish() }
        }
    }
}
