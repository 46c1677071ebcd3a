import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal
import AnimatedTestSupport

/// Frames kitty holds are not kept a second time: the player's buffer keeps placeholders for
/// them, later plays switch frames by number, and when the image is lost (deleted for a
/// re-layout or a resume) or resized the frames are prepared and uploaded again. Played on the
/// injected clock through the kitty output, decoded by MiniKitty.
@Suite struct OutputKittyHeldTests {
    static let cell = RenderSize(width: 10, height: 20)

    /// A player and a kitty output wired as the playback loop wires them, and the terminal.
    final class Rig {
        let time = ManualTime()
        let player: Player
        let sink = RecordingSink(cell: OutputKittyHeldTests.cell)
        let output: KittyOutput
        var term = MiniKitty()
        var layout: RenderLayout
        /// Which frame the terminal's image shows, from its pixels (nil: not one of ours).
        let identify: ([UInt8], RenderSize) -> Int?
        /// What the terminal showed after each draw (nil: no image).
        var shown: [Int?] = []
        /// Whether each frame `update` returned was a placeholder.
        var placeholders: [Bool] = []

        init(_ decoder: sending any AnimationDecoder, size: RenderSize,
             identify: @escaping ([UInt8], RenderSize) -> Int?) throws {
            player = try makePlayer(decoder, size: size, time: time, scaler: KittyFramePreparer())
            output = KittyOutput(screen: nil, sink: sink, terminal: TerminalInfo(cell: OutputKittyHeldTests.cell))
            output.terminalFrames = player.terminalFrames()
            layout = RenderLayout(size: size, row: 1, column: 2, cell: OutputKittyHeldTests.cell)
            self.identify = identify
        }

        var id: UInt32 { output.animation.id }

        func present() {
            output.present(at: layout, status: nil)
            term.feed(sink.take())
        }

        /// Plays until finished or `draws` more draws, calling `each` after every draw.
        func play(draws: Int = 100_000, each: (Int) -> Void = { _ in }) {
            var u = settle(player)
            var n = 0
            while true {
                if let f = u.frame {
                    placeholders.append(f.isPlaceholder)
                    output.show(f)
                    present()
                    let image = term.images[id]
                    shown.append(term.shown(id).flatMap { identify($0, RenderSize(width: image!.width, height: image!.height)) })
                    n += 1
                    each(n)
                    if n >= draws { return }
                }
                if u.finished { return }
                guard let d = u.nextDeadline else { return }
                time.set(max(d, time.now()))
                u = settle(player)
            }
        }
    }

    /// Solid frames: the colour says which.
    static func solid(_ px: [UInt8], _ size: RenderSize) -> Int? { Int(px[0]) | Int(px[1]) << 8 }

    /// Trail frames (frame k holds pixels 0…k composited in order): a wrong replay shows.
    static func trail(_ px: [UInt8], _ size: RenderSize) -> Int? {
        TrailDecoder.index(of: ScaledFrame(index: 0, size: size, pixels: px))
    }

    @Test func laterPlaysGetPlaceholdersAndTheBufferKeepsNoData() throws {
        let n = 12
        let rig = try Rig(SolidDecoder(frames: n, plays: 3), size: RenderSize(width: 8, height: 8), identify: Self.solid)
        var afterFirstPlay: FrameBufferStats?
        rig.play { draws in if draws == n { afterFirstPlay = rig.player.bufferStats } }
        #expect(rig.term.errors.isEmpty, "\(rig.term.errors)")
        // Three plays, every frame in order, each uploaded once.
        #expect(rig.shown == Array(repeating: Array(0..<n), count: 3).flatMap { $0 })
        #expect(rig.output.animation.uploads == n)
        #expect(rig.term.images[rig.id]?.frames.count == n)
        // After the first play only the last frame (the one printed at the end) has data.
        let s = try #require(afterFirstPlay)
        #expect(s.framesCached == n && s.framesHeld == n - 1)
        #expect(s.bytes > 0 && s.bytes < s.peakBytes)
        // Later plays: placeholders, but for the last frame; nothing decoded or prepared again.
        #expect(rig.placeholders[0..<n].allSatisfy { !$0 })
        #expect(rig.placeholders[n...] == ArraySlice((0..<2 * n).map { $0 % n != n - 1 }))
        let end = rig.player.bufferStats
        #expect(end.framesDecoded == n && end.framesScaled == n)
        #expect(end.bytes == s.bytes)
        // The frame on screen has its data: printed as it is.
        #expect(!rig.output.needsFrameOnScreen)
    }

    /// The image deleted mid-play (a resume, a re-layout): blank until the frame due is prepared
    /// again, then every frame is uploaded again, composited in order (replays from frame 0).
    @Test func aLostImageIsUploadedAgainFromTheFrameDue() throws {
        let n = 20
        let rig = try Rig(TrailDecoder(frames: n, plays: 3), size: RenderSize(width: 16, height: 2),
                          identify: Self.trail)
        let lossAt = n + 7                 // in the second play, on frame 6
        var blank: [Int?]?
        rig.play { draws in
            guard draws == lossAt else { return }
            rig.output.invalidate()
            rig.present()                  // the loop's redraw: the image goes, the placeholder cannot come back
            blank = [rig.term.shown(rig.id).flatMap { Self.trail($0, RenderSize(width: 16, height: 2)) }]
        }
        #expect(rig.term.errors.isEmpty, "\(rig.term.errors)")
        #expect(blank == [nil])
        // The frame due next (7) once prepared, then on in order: nothing skipped or wrong.
        #expect(rig.shown == Array(repeating: Array(0..<n), count: 3).flatMap { $0 })
        #expect(rig.output.animation.uploads == 2 * n)
        #expect(rig.placeholders[lossAt] == false)   // the frame due came with its data
        #expect(rig.player.bufferStats.framesHeld == n - 1)
    }

    @Test func aResizeUploadsEveryFrameAgainAtTheNewSize() throws {
        let n = 10
        let rig = try Rig(SolidDecoder(frames: n, plays: 3), size: RenderSize(width: 8, height: 8), identify: Self.solid)
        let big = RenderSize(width: 16, height: 16)
        rig.play { draws in
            guard draws == n + 3 else { return }
            rig.player.resize(to: big)
            rig.layout = RenderLayout(size: big, row: 1, column: 2, cell: Self.cell)
            rig.output.invalidate()
            rig.present()
        }
        #expect(rig.term.errors.isEmpty, "\(rig.term.errors)")
        // The redraw after the resize deleted the image; the frame due comes at the new size.
        #expect(rig.term.images[rig.id]?.width == 16)
        let played = rig.shown.compactMap { $0 }
        var deduplicated: [Int] = []
        for f in played where deduplicated.last != f { deduplicated.append(f) }
        #expect(deduplicated == Array(repeating: Array(0..<n), count: 3).flatMap { $0 })
        #expect(rig.output.animation.uploads == 2 * n)
        #expect(rig.term.images[rig.id]?.frames.count == n)
    }

    /// Quit mid-play on a placeholder: the frame on screen is prepared again for the still.
    @Test func theFrameOnScreenIsPreparedAgainForPrintingLast() throws {
        let n = 12
        let rig = try Rig(TrailDecoder(frames: n, plays: 3), size: RenderSize(width: 16, height: 1),
                          identify: Self.trail)
        rig.play(draws: n + 5)
        #expect(rig.shown.last == 4)
        #expect(rig.output.needsFrameOnScreen)
        let frame = try #require(rig.player.preparedFrameOnScreen(timeoutNanoseconds: 20_000_000_000))
        #expect(frame.index == 4 && !frame.isPlaceholder)
        rig.output.show(frame)
        #expect(!rig.output.needsFrameOnScreen)
        rig.output.printLast()
        rig.term.feed(rig.sink.take())
        #expect(rig.term.errors.isEmpty, "\(rig.term.errors)")
        #expect(rig.term.stills.count == 1)
        #expect(rig.term.stills.first.flatMap { Self.trail($0, RenderSize(width: 16, height: 1)) } == 4)
    }
}

extension OutputKittyHeldTests {
    /// With kitty holding the frames shown, the producer prepares a quarter of the budget
    /// ahead, not the whole window: the data held is a couple of frames, yet every frame is
    /// still decoded once over three plays (the placeholders widen the window to all of them).
    @Test func theLookAheadIsAQuarterOfTheBudget() throws {
        let n = 30
        let size = RenderSize(width: 8, height: 8)
        // The largest frame: the buffer sizes its window by it.
        let frameBytes = (0..<n).map { k in
            let (r, g, b) = colour(k)
            return KittyFramePreparer().scale(solidCanvas(8, 8, (r, g, b, 255)), index: k, to: size).byteCount
        }.max()!
        let time = ManualTime()
        let decoder = SolidDecoder(frames: n, plays: 3)
        let decodes = decoder.decodes
        let player = try Player(decoder: decoder, options: PlayerOptions(bufferBytes: 8 * frameBytes),
                                scaler: KittyFramePreparer(), renderSize: size, time: time)
        let sink = RecordingSink(cell: Self.cell)
        let output = KittyOutput(screen: nil, sink: sink, terminal: TerminalInfo(cell: Self.cell))
        output.terminalFrames = player.terminalFrames()
        let layout = RenderLayout(size: size, row: 0, column: 0, cell: Self.cell)
        var term = MiniKitty()
        var shown: [Int] = []
        var u = settle(player)
        while true {
            if let f = u.frame {
                output.show(f)
                output.present(at: layout, status: nil)
                term.feed(sink.take())
                shown.append(term.shown(output.animation.id).map { Int($0[0]) } ?? -1)
                // The look-ahead (2 frames), the frame just shown until the next, the last frame.
                #expect(player.bufferStats.bytes <= 4 * frameBytes)
            }
            if u.finished { break }
            guard let d = u.nextDeadline else { break }
            time.set(max(d, time.now()))
            u = settle(player)
        }
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(shown == Array(repeating: Array(0..<n), count: 3).flatMap { $0 })
        #expect(player.bufferStats.peakBytes <= 4 * frameBytes)
        #expect(decodes.perFrame == Array(repeating: 1, count: n))
        #expect(player.bufferStats.framesHeld == n - 1)
    }
}
