import Testing
@testable import AnimatedCore

/// `--fps`/`--delay` on an animation (`TimingPolicy.frameMs`), WebP's transparent colours, and
/// the GIF encoder's shared palette.
@Suite struct EncoderRetimingTests {
    typealias RT = EncoderRoundTripTests

    /// Six different frames with different stored delays, as a GIF.
    static func gif() throws -> [UInt8] {
        let frames = (0..<6).map { n in RT.canvas(8, 8) { x, _ in x == n ? (255, 0, 0, 255) : (0, 0, 255, 255) } }
        return try RT.encode(.gif, frames, ms: [100, 40, 250, 20, 70, 90], plays: 0)
    }

    @Test func frameMsShowsEveryFrameForTheSameTime() throws {
        let bytes = try Self.gif()
        let stored = try AnimationLoader.open(ByteSource(bytes: bytes)).info
        #expect((0..<6).map { stored.displayMs(at: $0) } == [100, 40, 250, 20, 70, 90])
        let retimed = try AnimationLoader.open(ByteSource(bytes: bytes), options: DecodeOptions(timing: TimingPolicy(frameMs: 50))).info
        #expect((0..<6).map { retimed.displayMs(at: $0) } == Array(repeating: 50, count: 6))
        #expect(retimed.durationMs == 300)
        // The browsers' 10 ms rule is about stored delays: a chosen 5 ms stays 5 ms.
        let fast = try AnimationLoader.open(ByteSource(bytes: bytes), options: DecodeOptions(timing: TimingPolicy(frameMs: 5))).info
        #expect(fast.displayMs(at: 1) == 5)
    }

    @Test(arguments: [EncodedFormat.apng, .webp, .gif])
    func transcodingARetimedAnimationWritesTheNewTimes(_ format: EncodedFormat) throws {
        let decoder = try AnimationLoader.open(ByteSource(bytes: Self.gif()), options: DecodeOptions(timing: TimingPolicy(frameMs: 80)))
        var transcoder = Transcoder()
        transcoder.speed = 2
        let sink = MemorySink()
        let encoder = try AnimationEncoders.make(format, width: 8, height: 8, plays: 0, options: EncoderOptions(), sink: sink)
        try transcoder.run(try Compositor(decoder: decoder), into: encoder)
        let got = try RT.decode(sink.bytes)
        #expect(got.frames.count == 6)
        #expect(got.ms == Array(repeating: 40, count: 6))
    }

    /// The output size is held to the decoding limits, as a canvas is: a resize to 60000x60000
    /// asked for 14 GB a frame. Refused before a frame of it is made; the encoder gets nothing.
    @Test func anOutputSizeOverTheLimitsIsRefused() throws {
        let decoder = try AnimationLoader.open(ByteSource(bytes: Self.gif()))
        var transcoder = Transcoder()
        transcoder.size = RenderSize(width: 60000, height: 60000)
        let sink = MemorySink()
        let encoder = try AnimationEncoders.make(.apng, width: 8, height: 8, plays: 0, options: EncoderOptions(), sink: sink)
        #expect(throws: AnimatedError.self) { try transcoder.run(try Compositor(decoder: decoder), into: encoder) }
        #expect(sink.bytes.isEmpty)
        do { try Transcoder.checkOutput(RenderSize(width: 60000, height: 60000), .default) } catch {
            #expect(error.kind == .limitExceeded && error.message == "output canvas 60000x60000 exceeds 33554432 pixels")
        }
        var roomy = DecodeLimits.default
        roomy.maxPixels = 1 << 30; roomy.maxDecodedBytes = 1 << 34
        #expect(throws: Never.self) { try Transcoder.checkOutput(RenderSize(width: 20000, height: 20000), roomy) }
    }

    @Test func samplesAreSpreadOverTheFramesInFileOrder() {
        #expect(Transcoder.samples(of: Array(0..<100), count: 8) == [0, 14, 28, 42, 57, 71, 85, 99])
        #expect(Transcoder.samples(of: Array((0..<100).reversed()), count: 8) == [0, 14, 28, 42, 57, 71, 85, 99])
        #expect(Transcoder.samples(of: [3, 4, 5, 4], count: 8) == [3, 4, 5])
        #expect(Transcoder.samples(of: Array(0..<10), count: 0).isEmpty)
    }

    /// Frames with colour under alpha 0 (a left half cleared to transparent red).
    static func colouredTransparency() -> [Canvas] {
        (0..<3).map { n in
            RT.canvas(32, 16) { x, y in x < 16 ? (255, UInt8(n * 50), UInt8(x * 8), 0) : (UInt8(x * 7), UInt8(y * 9), UInt8(n * 80), 255) }
        }
    }

    @Test func webpKeepsTheColourUnderAlpha0OnlyWhenAskedTo() throws {
        let frames = Self.colouredTransparency()
        var exact = EncoderOptions()
        exact.keepTransparentColor = true
        let want = frames.map { $0.snapshot() }
        #expect(try RT.decode(RT.encode(.webp, frames, ms: [100, 100, 100], options: exact)).frames == want)
        // By default (as gif2webp) the colour may change, but not what is shown.
        let got = try RT.decode(RT.encode(.webp, frames, ms: [100, 100, 100])).frames
        func shown(_ f: [UInt8]) -> [UInt8] {
            var f = f
            for i in stride(from: 0, to: f.count, by: 4) where f[i + 3] == 0 { f[i] = 0; f[i + 1] = 0; f[i + 2] = 0 }
            return f
        }
        #expect(got.map(shown) == want.map(shown))
    }

    /// Many-colour frames: a gradient, then after a cut a different one.
    static func scenes() -> [Canvas] {
        (0..<6).map { n in
            RT.canvas(64, 64) { x, y in
                n < 3 ? (UInt8(x * 4), UInt8(y * 4), UInt8(n * 10), 255) : (UInt8(n * 10), UInt8(255 - x * 4), UInt8(y * 4), 255)
            }
        }
    }

    static func worstError(_ got: [[UInt8]], _ want: [Canvas]) -> Int {
        var worst = 0
        for (g, w) in zip(got, want.map { $0.snapshot() }) { for i in 0..<g.count { worst = max(worst, abs(Int(g[i]) - Int(w[i]))) } }
        return worst
    }

    @Test func gifQuantisesANewSceneOnItsOwn() throws {
        // The first frame's palette is shared; the frames after the cut are too far from it and
        // get their own, so every frame stays close to its source.
        let frames = Self.scenes()
        let bytes = try RT.encode(.gif, frames, ms: Array(repeating: 50, count: 6))
        let got = try RT.decode(bytes)
        #expect(got.frames.count == 6)
        #expect(Self.worstError(got.frames, frames) <= 40)
        #expect(Self.localColourTables(bytes) > 0)
    }

    @Test func gifRemapsFramesOntoThePaletteOfTheSamples() throws {
        // A gradient moving sideways (4096 colours, the same ones in every frame): one palette
        // from the samples serves every frame, the global table, with no local tables.
        let frames = (0..<5).map { n in RT.canvas(64, 64) { x, y in (UInt8(((x + n * 7) % 64) * 4), UInt8(y * 4), 90, 255) } }
        let sink = MemorySink()
        let encoder = try AnimationEncoders.make(.gif, width: 64, height: 64, plays: 0, options: EncoderOptions(), sink: sink)
        #expect(encoder.wantedSamples > 0)
        for i in [0, 4] { try encoder.addSample(frames[i]) }
        for f in frames { try encoder.add(f, durationMs: 50) }
        try encoder.finish()
        let got = try RT.decode(sink.bytes)
        #expect(got.frames.count == 5)
        #expect(Self.worstError(got.frames, frames) <= 40)
        #expect(Self.localColourTables(sink.bytes) == 0)
    }

    /// Image descriptors with a local colour table in a GIF (walking its blocks).
    static func localColourTables(_ b: [UInt8]) -> Int {
        var i = 13, count = 0
        if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 7) + 1) }
        func skipSubBlocks(_ j: inout Int) { while j < b.count && b[j] != 0 { j += Int(b[j]) + 1 }; j += 1 }
        while i < b.count {
            switch b[i] {
            case 0x21: i += 2; skipSubBlocks(&i)
            case 0x2C:
                let flags = b[i + 9]
                i += 10
                if flags & 0x80 != 0 { count += 1; i += 3 << (Int(flags & 7) + 1) }
                i += 1   // LZW minimum code size
                skipSubBlocks(&i)
            default: return count   // 0x3B trailer
            }
        }
        return count
    }
}
