import Testing
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
@testable import AnimatedCore
@testable import AnimatedTerminal
import AnimatedTestSupport

/// The first frame's payload written while it is made (`FrameStream`): the stream itself, the
/// sixel writer's and encoder's hand-overs (every byte, in order), the player handing the stream
/// to the display, and the sixel output writing it so that the frame is not written again.
@Suite struct FirstFrameStreamTests {
    @Test func piecesComeInOrderAndTheStreamIsCompleteOnlyWithTheWholePayload() {
        let rung = Atomic(0)
        let stream = FrameStream(index: 3, size: RenderSize(width: 4, height: 2), firstBytes: { rung.add(1, ordering: .relaxed) })
        #expect(!stream.hasBytes && !stream.complete)
        let bytes: [UInt8] = [1, 2, 3, 4, 5]
        bytes.withUnsafeBytes { stream.append(UnsafeRawBufferPointer(rebasing: $0[0..<3])) }
        bytes.withUnsafeBytes { stream.append(UnsafeRawBufferPointer(rebasing: $0[3..<3])) }   // nothing: no piece
        bytes.withUnsafeBytes { stream.append(UnsafeRawBufferPointer(rebasing: $0[3..<5])) }
        #expect(stream.hasBytes && rung.load(ordering: .relaxed) == 1)
        stream.end(payloadBytes: 5)
        // Appended after the end: ignored.
        bytes.withUnsafeBytes { stream.append(UnsafeRawBufferPointer(rebasing: $0[0..<1])) }
        var got: [[UInt8]] = []
        #expect(stream.drain { got.append([UInt8]($0)) } && stream.complete)
        #expect(got == [[1, 2, 3], [4, 5]])
        // Drained once: a second drain writes nothing and says so.
        #expect(!stream.drain { got.append([UInt8]($0)) } && got.count == 2)

        let short = FrameStream(index: 0, size: RenderSize(width: 1, height: 1))
        bytes.withUnsafeBytes { short.append(UnsafeRawBufferPointer(rebasing: $0[0..<2])) }
        short.end(payloadBytes: 3)
        #expect(!short.complete && !short.drain { _ in })
        let none = FrameStream(index: 0, size: RenderSize(width: 1, height: 1))
        none.end(payloadBytes: 0)
        var wrote = false
        #expect(!none.drain { _ in wrote = true } && !wrote && !none.complete)
    }

    /// Random indices (seeded) in the upper rows, stripes below: many colours a band, so a
    /// tall image is some hand-overs long.
    static func noisyIndices(_ w: Int, _ h: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<(w * h)).map { i in
            state = state &* 1_103_515_245 &+ 12345
            return i < w * h / 2 ? UInt8(truncatingIfNeeded: state >> 16) : UInt8(i / w % 40)
        }
    }

    static let palette = (0..<768).map { UInt8(truncatingIfNeeded: $0 &* 37) }

    /// Heights below the halves' minimum (12), and above; the bytes handed over make up the
    /// image, in order, in more than one piece for large images, with either form of the writer.
    @Test(arguments: [7, 11, 120, 301])
    func theWritersHandOversAreTheImage(height h: Int) {
        let w = 400
        let idx = Self.noisyIndices(w, h, seed: UInt32(h))
        let plain = idx.withUnsafeBufferPointer {
            SixelBandWriter().write(indices: $0.baseAddress!, width: w, height: h, palette: Self.palette)
        }
        var pieces: [[UInt8]] = []
        let publish: SixelEncoder.Publish = { pieces.append([UInt8]($0)) }
        let writer = SixelBandWriter(), helper = SixelBandWriter()
        var plane = idx
        let halves = plane.withUnsafeMutableBufferPointer {
            Array(writer.writeInPlace(indices: $0.baseAddress!, width: w, height: h, palette: Self.palette, helper: helper,
                                      publish: publish, fillUpper: { _ in }, fillLower: { _ in }))
        }
        #expect(halves == plain && Array(pieces.joined()) == plain)
        // The upper half (its random rows) goes in pieces of `publishStep`, the rest at the end.
        let upperPieces = plain.count / 2 / SixelBandWriter.publishStep
        #expect(pieces.count >= min(3, upperPieces), "\(pieces.count) pieces of \(plain.count) bytes")
        #expect(h < 120 || upperPieces >= 3, "\(plain.count) bytes: too few for the test")
        pieces = []
        let banded = Array(writer.writeInPlace(width: w, height: h, palette: Self.palette, publish: publish) { y0, n, band in
            idx.withUnsafeBufferPointer { band.update(from: $0.baseAddress! + y0 * w, count: n * w) }
        })
        #expect(banded == plain && Array(pieces.joined()) == plain)
        // Without a hand-over, the next image hands nothing to the last one's.
        pieces = []
        _ = writer.writeInPlace(width: w, height: h, palette: Self.palette) { _, n, band in band.update(repeating: 1, count: n * w) }
        #expect(pieces.isEmpty)
    }

    /// A first frame small and large enough for its halves: the encoder hands over its image
    /// whole; a frame the shared palette serves hands over nothing.
    @Test(arguments: [(61, 35), (601, 437)])
    func theEncoderHandsOverTheFirstFramesImage(size: (Int, Int)) {
        let (w, h) = size
        let frames = [SixelBandMappingTests.noisyGradient(w, h, shift: 0, seed: 1),
                      SixelBandMappingTests.noisyGradient(w, h, shift: 1, seed: 2)]
        let enc = SixelEncoder(background: .terminal)
        for (k, frame) in frames.enumerated() {
            var pieces: [[UInt8]] = []
            let rgb = OpaqueFrame(frame, background: .terminal).rgb
            let image = rgb.withUnsafeBufferPointer {
                Array(enc.encodeInPlace(rgb: $0.baseAddress!, width: w, height: h, publish: { pieces.append([UInt8]($0)) }))
            }
            if k == 0 {
                #expect(Array(pieces.joined()) == image && !image.isEmpty)
            } else {
                #expect(enc.lastUsedSharedPalette && pieces.isEmpty)
            }
        }
    }

    /// A canvas of smooth colours with seeded noise: a first sixel of some tens of kilobytes.
    static func noisyCanvas(_ w: Int, _ h: Int) -> Canvas {
        let c = Canvas(width: w, height: h)
        var state: UInt32 = 99
        for y in 0..<h {
            for x in 0..<w {
                state = state &* 1_103_515_245 &+ 12345
                let o = (y * w + x) * 4
                c.pixels[o] = UInt8(x * 255 / w); c.pixels[o + 1] = UInt8(y * 255 / h)
                c.pixels[o + 2] = UInt8(truncatingIfNeeded: state >> 24); c.pixels[o + 3] = 255
            }
        }
        return c
    }

    /// The sixel output and its preparer on `sink`, as `OutputPlan` builds them.
    static func sixelOutput(_ sink: RecordingSink, tmux: Bool = false) -> (any FrameOutput, any FrameScaler) {
        let cell = RenderSize(width: 10, height: 20)
        let plan = OutputPlan.sixel(TerminalInfo(cell: cell, tmuxPassthrough: tmux, colorRegisters: 256))
        let (preparer, makeOutput) = plan.build(background: .terminal)
        let screen = SGRCellScreen(sink: sink, rows: 30, columns: 80, mode: .truecolor)
        return (makeOutput(screen, sink, OutputPlan.CellSettings(mode: .truecolor)), preparer)
    }

    static let size = RenderSize(width: 600, height: 440)
    static let layout = RenderLayout(size: size, row: 1, column: 2, cell: RenderSize(width: 10, height: 20))

    /// The first frame prepared into a stream (ended), the frame, and the stream.
    static func streamedFirst(_ preparer: any FrameScaler) throws -> (ScaledFrame, FrameStream) {
        let streaming = try #require(preparer as? any StreamingFrameScaler)
        let stream = FrameStream(index: 0, size: size)
        let frame = streaming.scale(noisyCanvas(160, 117), index: 0, to: size, streaming: stream)
        stream.end(payloadBytes: frame.payload.count)
        return (frame, stream)
    }

    @Test func theSixelOutputWritesTheStreamAsPresentWouldAndNotAgain() throws {
        // The usual way: the frame, then `present`.
        let usualSink = RecordingSink(cell: RenderSize(width: 10, height: 20))
        let (usual, usualPreparer) = Self.sixelOutput(usualSink)
        let plainFirst = usualPreparer.scale(Self.noisyCanvas(160, 117), index: 0, to: Self.size)
        usual.show(plainFirst)
        usual.present(at: Self.layout, status: nil)
        let expected = usualSink.take()

        let sink = RecordingSink(cell: RenderSize(width: 10, height: 20))
        let (output, preparer) = Self.sixelOutput(sink)
        let (first, stream) = try Self.streamedFirst(preparer)
        #expect(first.payload == plainFirst.payload && stream.complete)
        output.writeAhead(stream, at: Self.layout, status: nil)
        let written = sink.take()
        #expect(written == expected)                   // the same clear, cursor moves and image
        let image = try SixelTestImage.decode(dcs(written))
        #expect(image.width == Self.size.width && image.height == Self.size.height)
        // The frame, when it comes, is on screen already.
        output.show(first)
        output.present(at: Self.layout, status: nil)
        #expect(dcs(sink.take()).isEmpty)
        // The next frame is written as usual.
        output.show(preparer.scale(Self.noisyCanvas(160, 117), index: 1, to: Self.size))
        output.present(at: Self.layout, status: nil)
        #expect(try SixelTestImage.decode(dcs(sink.take())).width == Self.size.width)
    }

    @Test func thePreparerStreamsTheFirstFrameInPiecesAndNoOtherFrame() throws {
        let (_, preparer) = Self.sixelOutput(RecordingSink())
        let (first, stream) = try Self.streamedFirst(preparer)
        var pieces: [[UInt8]] = []
        #expect(stream.drain { pieces.append([UInt8]($0)) })
        #expect(pieces.count > 2 && Array(pieces.joined()) == first.payload, "\(pieces.count) pieces of \(first.payload.count) bytes")
        let streaming = try #require(preparer as? any StreamingFrameScaler)
        let later = FrameStream(index: 1, size: Self.size)
        let second = streaming.scale(Self.noisyCanvas(160, 117), index: 1, to: Self.size, streaming: later)
        later.end(payloadBytes: second.payload.count)
        #expect(!later.hasBytes && !second.payload.isEmpty)
    }

    @Test func aStreamCutShortIsEndedAndItsFrameWrittenWhole() throws {
        let sink = RecordingSink(cell: RenderSize(width: 10, height: 20))
        let (output, preparer) = Self.sixelOutput(sink)
        let first = preparer.scale(Self.noisyCanvas(160, 117), index: 0, to: Self.size)
        let cut = FrameStream(index: 0, size: Self.size)
        first.payload.withUnsafeBytes { cut.append(UnsafeRawBufferPointer(rebasing: $0[0..<($0.count / 2)])) }
        cut.end(payloadBytes: first.payload.count)
        output.writeAhead(cut, at: Self.layout, status: nil)
        let written = sink.take()
        // The image is ended (ST) before the cursor is restored: nothing after it is swallowed.
        let st = try #require((0..<(written.count - 1)).last { written[$0] == 0x1B && written[$0 + 1] == 0x5C })
        #expect(written[(st + 2)...].starts(with: Array("\u{1B}8\u{1B}[?2026l".utf8)))
        output.show(first)
        output.present(at: Self.layout, status: nil)
        let image = try SixelTestImage.decode(dcs(sink.take()))
        #expect(image.width == Self.size.width && image.height == Self.size.height)
    }

    @Test func noStreamThroughTmuxAtAnotherSizeOrAfterAFrame() throws {
        let tmuxSink = RecordingSink(cell: RenderSize(width: 10, height: 20))
        let (tmux, tmuxPreparer) = Self.sixelOutput(tmuxSink, tmux: true)
        tmux.writeAhead(try Self.streamedFirst(tmuxPreparer).1, at: Self.layout, status: nil)
        #expect(tmuxSink.take().isEmpty)

        let sink = RecordingSink(cell: RenderSize(width: 10, height: 20))
        let (output, preparer) = Self.sixelOutput(sink)
        let (first, stream) = try Self.streamedFirst(preparer)
        var other = Self.layout
        other.size = RenderSize(width: 590, height: 440)
        output.writeAhead(stream, at: other, status: nil)
        #expect(sink.take().isEmpty)
        output.show(first)
        output.present(at: Self.layout, status: nil)
        _ = sink.take()
        output.writeAhead(stream, at: Self.layout, status: nil)
        #expect(sink.take().isEmpty)
    }
}

/// The player hands the first frame's stream to the display once it has bytes (ringing the
/// arrival bell), once; later frames are prepared without one.
@Suite struct PlayerFrameStreamTests {
    /// Frame 0's payload in two parts, the second after the test opens the gate; every frame's
    /// pixels by nearest neighbour. Records which frames were asked to stream.
    final class TwoPartScaler: StreamingFrameScaler {
        private let gate = Monitor(false)
        let streamed = Mutex<[Int]>([])
        func open() {
            gate.withLock { $0 = true }
            gate.broadcast()
        }
        func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
            NearestScaler().scale(canvas, index: index, to: size)
        }
        func scale(_ canvas: Canvas, index: Int, to size: RenderSize, streaming stream: FrameStream) -> ScaledFrame {
            streamed.withLock { $0.append(index) }
            let frame = NearestScaler().scale(canvas, index: index, to: size)
            let payload = (0..<100).map { UInt8($0) }
            payload.withUnsafeBytes { stream.append(UnsafeRawBufferPointer(rebasing: $0[0..<60])) }
            _ = gate.wait { open -> MonitorStep<Bool> in open ? .done(true) : .sleep(notify: false) }
            payload.withUnsafeBytes { stream.append(UnsafeRawBufferPointer(rebasing: $0[60...])) }
            return ScaledFrame(index: index, size: size, pixels: frame.pixels, payload: payload)
        }
    }

    @Test func theFirstFramesStreamIsHandedOverOnceAndDrainedByTheProducer() throws {
        let time = ManualTime()
        let scaler = TwoPartScaler()
        let p = try makePlayer(SolidDecoder(frames: 3), PlayerOptions(maxFPS: 0), time: time, scaler: scaler)
        defer { scaler.open(); p.stop() }     // a failed expectation must not leave the producer at the gate
        #expect(p.update().frame == nil)              // the display waits for frame 0
        // The first bytes ring the bell (the producer waits at the gate meanwhile).
        #expect(readable(p.arrivals.readFD, timeoutMs: 20_000))
        p.arrivals.drain()
        let stream = try #require(p.takeFrameStream())
        #expect(p.takeFrameStream() == nil && stream.index == 0)
        // The first part is written here; the writer then opens the gate, and the second part
        // is written by the producer's thread as it appends it, while this one waits.
        let here = pthread_self()
        var pieces: [(bytes: [UInt8], here: Bool)] = []
        let complete = stream.drain { bytes in
            pieces.append(([UInt8](bytes), pthread_equal(pthread_self(), here) != 0))
            if pieces.count == 1 { scaler.open() }
        }
        #expect(complete && pieces.map(\.bytes) == [(0..<60).map { UInt8($0) }, (60..<100).map { UInt8($0) }])
        #expect(pieces.map(\.here) == [true, false])
        let run = play(p, time)
        #expect(run.frames == [0, 1, 2])
        #expect(scaler.streamed.withLock { $0 } == [0])
        #expect(p.takeFrameStream() == nil)
    }
}
