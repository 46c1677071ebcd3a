import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal
import AnimatedTestSupport

/// The first kitty upload written while it is compressed (inline frames, `FrameStream`): the
/// streamed command's chunks, zlib's hand-overs, the preparer's stream and the kitty output
/// writing it so that the frame is not uploaded again.
@Suite struct KittyFirstUploadStreamTests {
    /// Seeded bytes (xorshift).
    static func bytes(_ n: Int, seed: UInt32) -> [UInt8] {
        var x = seed | 1
        return (0..<n).map { _ in x ^= x << 13; x ^= x >> 17; x ^= x << 5; return UInt8(truncatingIfNeeded: x) }
    }

    /// An opaque canvas of gradients with seeded noise in blue: a zlib stream of some hundreds
    /// of kilobytes at 700×600 (2.6 MB of RGB pixels, over `Zlib.halvesThreshold`).
    static func opaqueCanvas(_ w: Int, _ h: Int, seed: UInt32 = 5) -> Canvas {
        let c = Canvas(width: w, height: h)
        let noise = bytes(w * h, seed: seed)
        for y in 0..<h {
            for x in 0..<w {
                let o = (y * w + x) * 4
                c.pixels[o] = UInt8(x * 255 / w); c.pixels[o + 1] = UInt8(y * 255 / h)
                c.pixels[o + 2] = noise[y * w + x] & 0x3F; c.pixels[o + 3] = 255
            }
        }
        return c
    }

    static let size = RenderSize(width: 700, height: 600)
    static let cell = RenderSize(width: 10, height: 20)
    static let layout = RenderLayout(size: size, row: 1, column: 2, cell: cell)

    @Test(arguments: [1, 100, 3072, 3073, 6144, 6145, 20_000])
    func theStreamedCommandWritesTheChunksAppendWrites(total: Int) {
        let data = Self.bytes(total, seed: UInt32(total))
        let keys = "a=T,i=9,p=1,f=24,o=z,s=70,v=60,c=7,r=3,C=1,q=1"
        var expected: [UInt8] = []
        KittyGraphics().append(keys: keys, payload: data.withUnsafeBytes { Base64.encode($0) }[...], to: &expected)
        for piece in [1, 7, 3072, 5000, total] {
            var command = KittyGraphics.StreamedCommand(KittyGraphics(), keys: keys)
            var out: [UInt8] = []
            var start = 0
            while start < total {
                let end = min(total, start + piece)
                data.withUnsafeBytes { command.add(UnsafeRawBufferPointer(rebasing: $0[start..<end]), to: &out) }
                start = end
            }
            command.finish(to: &out)
            #expect(out == expected, "\(total) bytes in pieces of \(piece)")
        }
    }

    @Test func zlibHandsOverTheStreamItReturnsInPieces() throws {
        let canvas = Self.opaqueCanvas(700, 600)
        var pieces: [[UInt8]] = []
        let packed = try #require(canvas.withUnsafeBytes {
            Zlib.compressOpaqueRGBInHalves($0, level: 1, publish: { pieces.append([UInt8]($0)) })
        })
        // (Large arrays are compared outside `#expect`: a failure's diff of them takes minutes.)
        let whole = Array(pieces.joined()) == packed
        #expect(pieces.count > 3 && whole, "\(pieces.count) pieces of \(packed.count) bytes")
        // The pixels' RGB, as without a listener (whose stream has fewer blocks: see `deflate`).
        let rgb = try #require(Zlib.decompress(packed, limit: 700 * 600 * 3))
        let unpublished = try #require(canvas.withUnsafeBytes { Zlib.compressOpaqueRGBInHalves($0, level: 1) })
        let same = rgb == Zlib.decompress(unpublished, limit: 700 * 600 * 3)
        #expect(same && rgb.count == 700 * 600 * 3 && rgb[3 * 1234 + 2] == canvas.pixels[4 * 1234 + 2])
        #expect(packed.count < unpublished.count + unpublished.count / 50, "\(packed.count) against \(unpublished.count)")
    }

    @Test func anIncompressibleFrameIsPublishedWhole() throws {
        // Random RGB: stored blocks, the most a published half's early block ends can add.
        let canvas = Canvas(width: 700, height: 600)
        let noise = Self.bytes(700 * 600 * 4, seed: 11)
        for i in 0..<(700 * 600) {
            canvas.pixels[4 * i] = noise[4 * i]; canvas.pixels[4 * i + 1] = noise[4 * i + 1]
            canvas.pixels[4 * i + 2] = noise[4 * i + 2]; canvas.pixels[4 * i + 3] = 255
        }
        var published: [UInt8] = []
        let packed = try #require(canvas.withUnsafeBytes {
            Zlib.compressOpaqueRGBInHalves($0, level: 1, publish: { published += $0 })
        })
        let rgb = try #require(Zlib.decompress(packed, limit: 700 * 600 * 3))
        let whole = published == packed && rgb.count == 700 * 600 * 3
        #expect(whole && packed.count > 700 * 600 * 3 && rgb[3 * 4321 + 1] == noise[4 * 4321 + 1])
    }

    /// Frame `index` prepared into a stream (ended), the frame, and the stream.
    static func streamed(_ preparer: KittyFramePreparer, _ canvas: Canvas, index: Int = 0) -> (ScaledFrame, FrameStream) {
        let stream = FrameStream(index: index, size: RenderSize(width: canvas.width, height: canvas.height))
        let frame = preparer.scale(canvas, index: index, to: stream.size, streaming: stream)
        stream.end(payloadBytes: frame.payload.count)
        return (frame, stream)
    }

    @Test func thePreparerStreamsOnlyTheFirstInlineOpaqueFrame() {
        let canvas = Self.opaqueCanvas(700, 600)
        let (first, stream) = Self.streamed(KittyFramePreparer(medium: .direct), canvas)
        var pieces: [[UInt8]] = []
        #expect(stream.drain { pieces.append([UInt8]($0)) })
        let whole = Array(pieces.joined()) == first.payload
        #expect(first.channels == 3 && stream.channels == 3 && whole)
        // Not a later frame, not through shared memory (a name goes), not with alpha.
        #expect(!Self.streamed(KittyFramePreparer(medium: .direct), canvas, index: 1).1.hasBytes)
        #expect(!Self.streamed(KittyFramePreparer(medium: .sharedMemory), canvas).1.hasBytes)
        let translucent = Self.opaqueCanvas(700, 600)
        translucent.pixels[4 * 5000 + 3] = 128
        let (withAlpha, alphaStream) = Self.streamed(KittyFramePreparer(medium: .direct), translucent)
        #expect(withAlpha.channels == 4 && !alphaStream.hasBytes && !alphaStream.complete)
    }

    static func output(_ sink: RecordingSink, tmux: Bool = false, medium: KittyMedium = .direct) -> KittyOutput {
        KittyOutput(screen: nil, sink: sink, terminal: TerminalInfo(cell: cell, tmuxPassthrough: tmux), medium: medium,
                    preparer: KittyFramePreparer(medium: medium))
    }

    /// The APC commands (kitty graphics) in `bytes`.
    static func uploads(_ bytes: [UInt8]) -> Int {
        var term = MiniKitty()
        term.feed(bytes)
        return term.commands.filter { $0["a"] == "T" || $0["a"] == "f" }.count
    }

    @Test func theKittyOutputWritesTheUploadAsPresentWouldAndNotAgain() throws {
        let canvas = Self.opaqueCanvas(700, 600)
        let sink = RecordingSink(cell: Self.cell)
        let output = Self.output(sink)
        let (first, stream) = Self.streamed(KittyFramePreparer(medium: .direct), canvas)
        // The usual way: the frame, then `present`.
        let usualSink = RecordingSink(cell: Self.cell)
        let usual = Self.output(usualSink)
        usual.show(first)
        usual.present(at: Self.layout, status: nil)
        let expected = usualSink.take()

        output.writeAhead(stream, at: Self.layout, status: nil)
        let written = sink.take()
        let same = written == expected
        #expect(same && written.count > 20_000)       // the same cursor moves and chunks
        var term = MiniKitty()
        term.feed(written)
        #expect(term.errors.isEmpty, "\(term.errors)")
        let shown = try #require(term.shown(output.animation.id))
        #expect(shown.count == 700 * 600 * 4 && shown[4 * 1234 + 2] == canvas.pixels[4 * 1234 + 2])
        // The frame, when it comes, is on screen already.
        output.show(first)
        output.present(at: Self.layout, status: nil)
        #expect(Self.uploads(sink.take()) == 0)
        // The next frame is added as usual.
        output.show(KittyFramePreparer(medium: .direct).scale(Self.opaqueCanvas(700, 600, seed: 9), index: 1, to: Self.size))
        output.present(at: Self.layout, status: nil)
        let before = term.commands.count
        term.feed(sink.take())
        #expect(term.commands[before...].first?["a"] == "f" && term.errors.isEmpty, "\(term.errors)")
        #expect(term.images[output.animation.id]?.frames.count == 2)
    }

    @Test func anUploadCutShortIsEndedAndItsImageDeleted() throws {
        let canvas = Self.opaqueCanvas(700, 600)
        let first = KittyFramePreparer(medium: .direct).scale(canvas, index: 0, to: Self.size)
        let cut = FrameStream(index: 0, size: Self.size)
        cut.declare(channels: 3)
        first.payload.withUnsafeBytes { cut.append(UnsafeRawBufferPointer(rebasing: $0[0..<($0.count / 2)])) }
        cut.end(payloadBytes: first.payload.count)
        let sink = RecordingSink(cell: Self.cell)
        let output = Self.output(sink)
        output.writeAhead(cut, at: Self.layout, status: nil)
        var term = MiniKitty()
        term.feed(sink.take())
        // The upload ended (else the delete would be taken for one of its chunks), then the
        // image deleted.
        #expect(term.commands.map { $0["a"] } == ["T", "d"])
        #expect(!term.errors.contains { $0.hasPrefix("continuation") }, "\(term.errors)")
        output.show(first)
        output.present(at: Self.layout, status: nil)
        var again = MiniKitty()
        again.feed(sink.take())
        #expect(again.errors.isEmpty && again.commands.first?["a"] == "T")
    }

    @Test func noStreamThroughTmuxSharedMemoryAnotherSizeOrAfterAFrame() {
        let canvas = Self.opaqueCanvas(700, 600)
        for (tmux, medium) in [(true, KittyMedium.direct), (false, .sharedMemory)] {
            let sink = RecordingSink(cell: Self.cell)
            let output = Self.output(sink, tmux: tmux, medium: medium)
            output.writeAhead(Self.streamed(KittyFramePreparer(medium: .direct), canvas).1, at: Self.layout, status: nil)
            #expect(sink.take().isEmpty, "tmux \(tmux), \(medium)")
        }
        let sink = RecordingSink(cell: Self.cell)
        let output = Self.output(sink)
        let (first, stream) = Self.streamed(KittyFramePreparer(medium: .direct), canvas)
        var other = Self.layout
        other.size = RenderSize(width: 690, height: 600)
        output.writeAhead(stream, at: other, status: nil)
        #expect(sink.take().isEmpty)
        output.show(first)
        output.present(at: Self.layout, status: nil)
        #expect(Self.uploads(sink.take()) == 1)
        output.writeAhead(Self.streamed(KittyFramePreparer(medium: .direct), canvas).1, at: Self.layout, status: nil)
        #expect(sink.take().isEmpty)
    }
}
