import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// The GIF codec on small GIFs written by `GIFTestWriter` (exact bytes, known offsets).
@Suite struct GIFDecoderTests {
    static let palette: [UInt32] = [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF]
    static let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255]
    static let blue: [UInt8] = [0, 0, 255, 255], white: [UInt8] = [255, 255, 255, 255]
    static let clear: [UInt8] = [0, 0, 0, 0]

    func open(_ w: GIFTestWriter, _ options: DecodeOptions = DecodeOptions()) throws -> GIFDecoder {
        try GIFDecoder(source: ByteSource(bytes: w.bytes), options: options)
    }

    func open(_ bytes: [UInt8]) throws -> GIFDecoder {
        try GIFDecoder(source: ByteSource(bytes: bytes), options: DecodeOptions())
    }

    func pixel(_ c: Canvas, _ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * c.width + x) * 4
        return Array(c.pixels[i..<(i + 4)])
    }

    func isLimit(_ e: AnimatedError?) -> Bool {
        e?.kind == .limitExceeded
    }

    func solid(_ w: Int, _ h: Int, _ index: UInt8) -> [UInt8] { [UInt8](repeating: index, count: w * h) }

    // MARK: - index

    @Test func indexRecordsOffsetsRectsTimingAndDisposal() throws {
        var w = GIFTestWriter(width: 16, height: 8, palette: Self.palette)
        w.loop(3)
        w.control(dispose: 1, delayCs: 5)
        w.image(width: 16, height: 8, pixels: solid(16, 8, 0))
        w.comment("between frames")
        w.control(dispose: 2, delayCs: 0, transparent: 3)
        w.image(x: 2, y: 1, width: 4, height: 3, pixels: solid(4, 3, 1))
        w.image(x: 10, y: 4, width: 6, height: 4, pixels: solid(6, 4, 1), palette: [0x123456, 0x654321])
        w.control(dispose: 3, delayCs: 20)
        w.image(width: 16, height: 8, pixels: solid(16, 8, 2))
        w.trailer()

        let d = try open(w)
        let info = d.info
        #expect(info.format == .gif)
        #expect(info.width == 16 && info.height == 8)
        #expect(info.frameCount == 4)
        #expect(info.plays == 4)
        #expect(info.warnings.isEmpty)
        #expect(d.entries.map(\.offset) == w.imageOffsets)
        #expect(info.frames.map(\.rect) == [FrameRect(x: 0, y: 0, width: 16, height: 8),
                                           FrameRect(x: 2, y: 1, width: 4, height: 3),
                                           FrameRect(x: 10, y: 4, width: 6, height: 4),
                                           FrameRect(x: 0, y: 0, width: 16, height: 8)])
        #expect(info.frames.map(\.delayMs) == [50, 0, 0, 200])
        #expect(info.frames.map(\.dispose) == [.none, .background, .none, .previous])
        #expect(info.frames.allSatisfy { $0.blend == .over })
        #expect(info.frames.map(\.hasAlpha) == [false, true, false, false])
        #expect(d.entries.map(\.transparent) == [-1, 3, -1, -1])
        #expect(info.displayMs(at: 1) == 100)        // browser rule for delays <= 10 ms

        let raw = try open(w, DecodeOptions(timing: TimingPolicy(browserMinimumDelay: false)))
        #expect(raw.info.displayMs(at: 1) == 0)
    }

    @Test func playsFollowTheLastLoopBlock() throws {
        func plays(_ build: (inout GIFTestWriter) -> Void) throws -> Int {
            var w = GIFTestWriter(width: 2, height: 2, palette: Self.palette)
            build(&w)
            w.trailer()
            return try open(w).info.plays
        }
        let image: (inout GIFTestWriter) -> Void = { $0.image(width: 2, height: 2, pixels: [0, 1, 2, 3]) }
        #expect(try plays { image(&$0) } == 1)
        #expect(try plays { $0.loop(0); image(&$0) } == 0)
        #expect(try plays { $0.loop(1); image(&$0) } == 2)
        #expect(try plays { $0.loop(7, id: "ANIMEXTS1.0"); image(&$0) } == 8)
        #expect(try plays { $0.loop(2); image(&$0); $0.loop(5) } == 6)
        #expect(try plays { $0.loop(0); image(&$0); $0.loop(3) } == 4)
        #expect(try plays { $0.loop(9, id: "OTHERAPP1.0"); image(&$0) } == 1)
    }

    // MARK: - limits and damage

    @Test func hugeScreenIsRejectedBeforeReadingFurther() throws {
        // A bare header: anything but the size check would fail with a different error.
        var header = GIFTestWriter(width: 65535, height: 65535)
        header.trailer()
        let e1 = #expect(throws: AnimatedError.self) { try open(header.bytes) }
        #expect(isLimit(e1))

        var w = GIFTestWriter(width: 65535, height: 65535, palette: Self.palette)
        w.image(width: 1, height: 1, pixels: [0])
        w.trailer()
        let e2 = #expect(throws: AnimatedError.self) { try open(w) }
        #expect(isLimit(e2))

        var small = GIFTestWriter(width: 16, height: 8, palette: Self.palette)
        small.image(width: 16, height: 8, pixels: solid(16, 8, 0))
        small.trailer()
        var limits = DecodeLimits.default
        limits.maxDimension = 8
        let e3 = #expect(throws: AnimatedError.self) { try open(small, DecodeOptions(limits: limits)) }
        #expect(isLimit(e3))
    }

    /// Three opaque 8x4 frames: red, green, blue.
    func threeFrames() -> GIFTestWriter {
        var w = GIFTestWriter(width: 8, height: 4, palette: Self.palette)
        for i in 0..<3 {
            w.control(delayCs: 10)
            w.image(width: 8, height: 4, pixels: solid(8, 4, UInt8(i)))
        }
        w.trailer()
        return w
    }

    @Test func truncationKeepsIndexedFramesAndWarns() throws {
        let w = threeFrames()

        // Cut right after frame 1's data: two frames, no trailer.
        let afterOne = try open(Array(w.bytes[..<w.imageEnds[1]]))
        #expect(afterOne.info.frameCount == 2)
        #expect(afterOne.info.warnings.contains { $0.contains("after frame 1") })

        // Cut inside frame 2's descriptor: that frame is dropped.
        let inDescriptor = try open(Array(w.bytes[..<(w.imageOffsets[2] + 5)]))
        #expect(inDescriptor.info.frameCount == 2)
        #expect(inDescriptor.info.warnings.contains { $0.contains("descriptor") })

        // Cut inside frame 2's data: the frame is kept and draws what decodes. Its data is one
        // block of 39 bytes (clear, 32 literals, end code, 9 bits each); cutting the last 10 file
        // bytes leaves 30 data bytes = 26 whole codes = clear + 25 pixels. It covers the screen
        // without a transparent index, so it is decoded alone (still a keyframe): the pixels
        // that did not arrive are transparent, not frame 1's, as in Chromium
        // (Tests/Fixtures/browser/gif-cut-opaque.gif).
        let inData = try open(Array(w.bytes[..<(w.imageEnds[2] - 10)]))
        #expect(inData.info.frameCount == 3)
        #expect(inData.info.warnings == ["truncated in the image data of frame 2"])
        #expect(!inData.info.frames[2].hasAlpha && inData.info.frames[2].keyframe)
        let comp = try Compositor(decoder: inData)
        let c = comp.frame(at: 2)
        #expect(comp.problems[2]?.contains("frame 2") == true)
        #expect(comp.problems[0] == nil && comp.problems[1] == nil)
        for i in 0..<32 {
            #expect(pixel(c, i % 8, i / 8) == (i < 25 ? Self.blue : Self.clear), "pixel \(i)")
        }
        // The same from a replay that starts there (random access).
        let replay = try Compositor(decoder: try open(Array(w.bytes[..<(w.imageEnds[2] - 10)])))
        #expect(replay.frame(at: 2).snapshot() == c.snapshot())
    }

    @Test func noImagesIsAnError() throws {
        var w = GIFTestWriter(width: 4, height: 4, palette: Self.palette)
        w.loop(0)
        w.trailer()
        let e = #expect(throws: AnimatedError.self) { try open(w) }
        #expect(e == .invalid("no frames"))
    }

    @Test func dataEndingMidRowLeavesTheRestUnchanged() throws {
        var w = GIFTestWriter(width: 8, height: 4, palette: Self.palette)
        w.image(width: 8, height: 4, pixels: solid(8, 4, 3), stopAfter: 13)
        w.trailer()
        let d = try open(w)
        #expect(d.info.warnings.isEmpty)       // the file is whole; only decoding finds it short
        let comp = try Compositor(decoder: d)
        let c = comp.frame(at: 0)
        #expect(comp.problems[0] == "invalid image: frame 0: LZW data ends before the last pixel")
        for i in 0..<32 {
            #expect(pixel(c, i % 8, i / 8) == (i < 13 ? Self.white : Self.clear), "pixel \(i)")
        }
    }

    // MARK: - pixels

    /// An invalid LZW code (one not in the table yet) ends the frame there, as in browsers: the
    /// pixels before it are drawn, the rest of the rect keeps the previous canvas, and the frame
    /// is reported. giflib alone would go on decoding the literals after it.
    @Test(arguments: [false, true])
    func invalidCodeStopsTheFrameKeepingWhatCameBefore(interlaced: Bool) throws {
        var w = GIFTestWriter(width: 8, height: 4, palette: Self.palette)
        w.control(dispose: 1)
        w.image(width: 8, height: 4, pixels: solid(8, 4, 0))                            // red
        w.control(dispose: 1, transparent: 3)      // not a keyframe: it shows frame 0 where it is not drawn
        w.image(width: 8, height: 4, pixels: solid(8, 4, 1), interlaced: interlaced, invalidCodeAfter: 13)
        w.image(x: 0, y: 3, width: 2, height: 1, pixels: [2, 2])                        // blue
        w.trailer()
        let comp = try Compositor(decoder: open(w))
        let c = comp.frame(at: 1)
        // 13 pixels = one stored row and 5 of the next; interlaced, rows are stored 0, 2, 1, 3.
        let storedRows = interlaced ? [0, 2, 1, 3] : [0, 1, 2, 3]
        for (k, y) in storedRows.enumerated() {
            for x in 0..<8 {
                let want = k * 8 + x < 13 ? Self.green : Self.red
                #expect(pixel(c, x, y) == want, "pixel (\(x),\(y))")
            }
        }
        #expect(comp.problems[1]?.contains("invalid LZW code after 13 pixels") == true, "\(comp.problems)")
        // The next frame decodes normally.
        #expect(pixel(comp.frame(at: 2), 0, 3) == Self.blue)
        #expect(comp.problems[2] == nil)
    }

    /// A damaged keyframe (full and opaque) is drawn alone, as browsers do: what its data does
    /// not supply is transparent, whether it is reached in order or by a replay.
    @Test func damagedKeyframeShowsTransparentWhereDataIsMissing() throws {
        var w = GIFTestWriter(width: 8, height: 4, palette: Self.palette)
        w.control(dispose: 1)
        w.image(width: 8, height: 4, pixels: solid(8, 4, 0))                            // red
        w.control(dispose: 1)
        w.image(width: 8, height: 4, pixels: solid(8, 4, 1), invalidCodeAfter: 13)     // green, damaged
        w.trailer()
        let d = try open(w)
        #expect(d.info.frames[1].keyframe)
        let sequential = try Compositor(decoder: d)
        sequential.frame(at: 0)
        let inOrder = sequential.frame(at: 1).snapshot()
        let replayed = try Compositor(decoder: open(w)).frame(at: 1).snapshot()
        #expect(inOrder == replayed)
        #expect(Array(inOrder[0..<4]) == Self.green && Array(inOrder[(13 * 4)..<(14 * 4)]) == Self.clear)
    }

    /// The committed regression fixture (Tests/Fixtures/hostile, made by make.py) shows the same.
    @Test func invalidCodeFixtureKeepsTheFirstThirteenPixels() throws {
        let comp = try Compositor(decoder: AnimationLoader.open(path: Hostile.root + "/files/gif-lzw-invalid-code-mid-frame.gif"))
        let before = comp.frame(at: 0).snapshot()
        let after = comp.frame(at: 1).snapshot()
        #expect(Array(after[0..<(13 * 4)]) != Array(before[0..<(13 * 4)]))
        #expect(Array(after[(13 * 4)...]) == Array(before[(13 * 4)...]))
        #expect(comp.problems[1]?.contains("invalid LZW code after 13 pixels") == true)
    }

    @Test func interlacedRowsLandInImageOrder() throws {
        let colors: [UInt32] = (0..<16).map { UInt32($0 * 16) << 16 | 0x0080 }
        let pixels = (0..<11).flatMap { row in [UInt8](repeating: UInt8(row), count: 5) }
        var a = GIFTestWriter(width: 5, height: 11, palette: colors)
        a.image(width: 5, height: 11, pixels: pixels, interlaced: true)
        a.trailer()
        let c = try Compositor(decoder: open(a)).frame(at: 0)
        for y in 0..<11 {
            #expect(pixel(c, 2, y) == [UInt8(y * 16), 0, 0x80, 255], "row \(y)")
        }

        #expect((0..<10).map { GIFRaster.imageRow(stored: $0, height: 10, interlaced: true) }
                == [0, 8, 4, 2, 6, 1, 3, 5, 7, 9])
        for h in 1...20 {
            let rows = (0..<h).map { GIFRaster.imageRow(stored: $0, height: h, interlaced: true) }
            #expect(rows.sorted() == Array(0..<h), "height \(h)")
        }
        // Rows 0...2 of 10 are stored at positions 0, 5 and 3: six rows must be decoded.
        #expect(GIFRaster.rowsToDecode(height: 10, visibleRows: 3, interlaced: true) == 6)
        #expect(GIFRaster.rowsToDecode(height: 10, visibleRows: 3, interlaced: false) == 3)
    }

    /// Rows are drawn a few at a time as they are decoded: a tall frame, interlaced or not,
    /// whose data ends part-way through a row far past the first steps shows exactly the stored
    /// rows before that row, the pixels of it that came, and nothing else.
    @Test(arguments: [false, true])
    func aTallFrameCutShortShowsExactlyWhatCame(interlaced: Bool) throws {
        let height = 70, width = 5
        let colors: [UInt32] = (0..<128).map { UInt32($0 * 2) << 16 | 0x0080 }
        let pixels = (0..<height).flatMap { row in [UInt8](repeating: UInt8(row), count: width) }
        let came = 53 * width + 2         // stored rows 0...52, two pixels of stored row 53
        var w = GIFTestWriter(width: width, height: height, palette: colors)
        w.image(width: width, height: height, pixels: pixels, interlaced: interlaced, stopAfter: came)
        w.trailer()
        let comp = try Compositor(decoder: open(w))
        let c = comp.frame(at: 0)
        #expect(comp.problems[0] == "invalid image: frame 0: LZW data ends before the last pixel")
        for k in 0..<height {
            let y = GIFRaster.imageRow(stored: k, height: height, interlaced: interlaced)
            for x in 0..<width {
                let want = k * width + x < came ? [UInt8(y * 2), 0, 0x80, 255] : Self.clear
                #expect(pixel(c, x, y) == want, "stored row \(k), image row \(y), x \(x)")
            }
        }
    }

    /// The canvas grows to hold the first frame, as Chromium's does (encoders write too small a
    /// screen, even 0×0, and browsers show the whole first frame); later frames are clipped.
    @Test func theFirstFrameGrowsTheScreenAndLaterFramesAreClipped() throws {
        var w = GIFTestWriter(width: 8, height: 8, palette: Self.palette)
        w.image(x: 6, y: 6, width: 4, height: 4, pixels: solid(4, 4, 1))
        w.image(x: 20, y: 20, width: 4, height: 4, pixels: solid(4, 4, 2))
        w.trailer()
        let comp = try Compositor(decoder: open(w))
        #expect(comp.info.width == 10 && comp.info.height == 10)
        let first = comp.frame(at: 0).snapshot()
        let c = comp.frame(at: 1)
        #expect(c.width == 10 && c.height == 10)
        #expect(c.snapshot() == first)            // the second frame lies outside: nothing drawn
        for y in 0..<10 {
            for x in 0..<10 {
                #expect(pixel(c, x, y) == (x >= 6 && y >= 6 ? Self.green : Self.clear))
            }
        }
    }

    /// A 0×0 screen (or one too narrow) is the first frame's size; with nothing to hold, it is
    /// still refused; a first frame too far out for the limits is refused by them.
    @Test func aScreenTooSmallForTheFirstFrame() throws {
        var w = GIFTestWriter(width: 0, height: 0, palette: Self.palette)
        w.image(x: 0, y: 0, width: 3, height: 2, pixels: solid(3, 2, 1))
        w.trailer()
        var d = try open(w)
        #expect(d.info.width == 3 && d.info.height == 2)
        let c = try Compositor(decoder: d).frame(at: 0)
        #expect(pixel(c, 2, 1) == Self.green)

        w = GIFTestWriter(width: 5, height: 0, palette: Self.palette)
        w.image(x: 1, y: 2, width: 2, height: 2, pixels: solid(2, 2, 1))
        w.trailer()
        d = try open(w)
        #expect(d.info.width == 5 && d.info.height == 4)

        w = GIFTestWriter(width: 0, height: 0, palette: Self.palette)
        w.image(x: 4, y: 4, width: 0, height: 0, pixels: [])
        w.trailer()
        #expect(throws: AnimatedError.invalid("canvas is 0x0")) { try open(w) }

        w = GIFTestWriter(width: 8, height: 8, palette: Self.palette)
        w.image(x: 65000, y: 65000, width: 4, height: 4, pixels: solid(4, 4, 1))
        w.trailer()
        var refusal: AnimatedError?
        do { _ = try open(w) } catch { refusal = error as? AnimatedError }
        #expect(isLimit(refusal), "\(String(describing: refusal))")     // 65004×65004 pixels
    }

    @Test func outOfPaletteIsOpaqueBlackAndTransparentIndexMaySitOutside() throws {
        var w = GIFTestWriter(width: 4, height: 1, palette: [0xFF0000, 0x00FF00])
        w.control(transparent: 7)
        w.image(width: 4, height: 1, pixels: [0, 5, 7, 1])
        w.trailer()
        let c = try Compositor(decoder: open(w)).frame(at: 0)
        #expect(pixel(c, 0, 0) == Self.red)
        #expect(pixel(c, 1, 0) == [0, 0, 0, 255])
        #expect(pixel(c, 2, 0) == Self.clear)
        #expect(pixel(c, 3, 0) == Self.green)
    }

    @Test func transparentIndexLeavesTheCanvasUnchanged() throws {
        // Wide enough for the eight-at-a-time path, with mixed and all-transparent groups.
        let width = 37
        var w = GIFTestWriter(width: width, height: 2, palette: Self.palette)
        w.image(width: width, height: 2, pixels: solid(width, 2, 0))
        w.control(transparent: 2)
        let second: [UInt8] = (0..<(width * 2)).map { i in (i / 8) % 2 == 0 ? 2 : UInt8([1, 2, 3][i % 3]) }
        w.image(width: width, height: 2, pixels: second)
        w.trailer()
        let c = try Compositor(decoder: open(w)).frame(at: 1)
        for i in 0..<(width * 2) {
            let want = second[i] == 2 ? Self.red : second[i] == 1 ? Self.green : Self.white
            #expect(pixel(c, i % width, i / width) == want, "pixel \(i)")
        }
    }

    @Test func codeSizesGiflibRefusesStillDecode() throws {
        let pixels: [UInt8] = (0..<(9 * 7)).map { UInt8($0 % 4) }
        func canvas(codeSize: Int) throws -> (GIFDecoder, [UInt8], String?) {
            var w = GIFTestWriter(width: 9, height: 7, palette: Self.palette)
            w.image(width: 9, height: 7, pixels: pixels, codeSize: codeSize)
            w.trailer()
            let d = try open(w)
            let comp = try Compositor(decoder: d)
            return (d, comp.frame(at: 0).snapshot(), comp.problems[0])
        }
        let (_, reference, noProblem) = try canvas(codeSize: 8)
        #expect(noProblem == nil)
        #expect(reference[3] == 255)
        for size in 9...11 {
            let (d, got, problem) = try canvas(codeSize: size)
            #expect(d.entries[0].wideCodeSize == UInt8(size))
            #expect(problem == nil)
            #expect(got == reference, "code size \(size)")
        }
        let (d12, got12, problem12) = try canvas(codeSize: 12)
        #expect(d12.info.frames[0].hasAlpha)
        #expect(problem12 != nil)
        #expect(got12.allSatisfy { $0 == 0 })
    }

    // MARK: - access order and state

    /// Disposal, transparency, sub-rects and a full opaque frame (a keyframe) mixed.
    func mixedAnimation() -> GIFTestWriter {
        var w = GIFTestWriter(width: 12, height: 10, palette: Self.palette)
        w.loop(0)
        w.control(dispose: 1, delayCs: 4)
        w.image(x: 1, y: 1, width: 6, height: 6, pixels: (0..<36).map { UInt8($0 % 4) })
        w.control(dispose: 2, delayCs: 4, transparent: 0)
        w.image(x: 4, y: 2, width: 5, height: 5, pixels: (0..<25).map { UInt8($0 % 3) })
        w.control(dispose: 3, delayCs: 4)
        w.image(x: 0, y: 5, width: 12, height: 5, pixels: solid(12, 5, 2), interlaced: true)
        w.control(dispose: 0, delayCs: 4, transparent: 1)
        w.image(x: 3, y: 0, width: 9, height: 4, pixels: (0..<36).map { UInt8($0 % 2) })
        w.control(dispose: 1, delayCs: 4)
        w.image(width: 12, height: 10, pixels: (0..<120).map { UInt8($0 / 12 % 4) })
        w.control(dispose: 3, delayCs: 4, transparent: 3)
        w.image(x: 2, y: 2, width: 8, height: 8, pixels: (0..<64).map { UInt8($0 % 4) })
        w.control(dispose: 2, delayCs: 4)
        w.image(x: 6, y: 6, width: 10, height: 10, pixels: solid(10, 10, 1))
        w.image(x: 0, y: 0, width: 3, height: 3, pixels: solid(3, 3, 3), palette: [0x808080])
        w.trailer()
        return w
    }

    @Test func randomAccessMatchesSequentialWithOneHandle() throws {
        let w = mixedAnimation()
        let forwardDecoder = try open(w)
        let forward = try Compositor(decoder: forwardDecoder)
        let n = forwardDecoder.info.frameCount
        #expect(n == 8)
        #expect(forwardDecoder.info.frames[4].keyframe)
        let expected = (0..<n).map { forward.frame(at: $0).snapshot() }
        #expect(forward.problems.isEmpty)
        #expect(forwardDecoder.handlesOpened == 1)      // the index pass's handle, reused
        #expect(Set(expected.map(\.hashValue)).count > 4)

        let randomDecoder = try open(w)
        let random = try Compositor(decoder: randomDecoder)
        for i in [7, 2, 5, 0, 6, 1, 3, 4, 4, 7, 0] {
            #expect(random.frame(at: i).snapshot() == expected[i], "frame \(i)")
        }
        #expect(randomDecoder.handlesOpened == 1)
        #expect(randomDecoder.giflibSavedImages == 0)
    }

    /// giflib reads the records and `GIFLZWDecoder` the image data: a damaged frame leaves
    /// giflib's state as it was, and the next frame is read on the same handle.
    @Test func aDamagedFrameKeepsTheHandle() throws {
        var w = GIFTestWriter(width: 8, height: 4, palette: Self.palette)
        w.image(width: 8, height: 4, pixels: solid(8, 4, 0))
        w.image(width: 8, height: 4, pixels: solid(8, 4, 1), stopAfter: 10)
        w.image(width: 8, height: 4, pixels: solid(8, 4, 2))
        w.trailer()
        let d = try open(w)
        let comp = try Compositor(decoder: d)
        comp.frame(at: 0)
        #expect(pixel(comp.frame(at: 1), 9 % 8, 9 / 8) == Self.green)
        comp.frame(at: 2)
        #expect(comp.problems.keys.sorted() == [1])
        #expect(d.handlesOpened == 1)
        #expect(pixel(comp.canvas, 0, 0) == Self.blue)
    }

    @Test func manyFramesKeepGiflibStateFlat() throws {
        var w = GIFTestWriter(width: 4, height: 4, palette: Self.palette)
        w.loop(0)
        for i in 0..<3000 {
            w.control(delayCs: 2)
            w.image(x: i % 4, y: (i / 4) % 4, width: 1, height: 1, pixels: [UInt8(i % 4)])
        }
        w.trailer()
        let d = try open(w)
        #expect(d.info.frameCount == 3000)
        #expect(d.giflibSavedImages == 0)
        let comp = try Compositor(decoder: d)
        for i in 0..<3000 { comp.frame(at: i) }
        #expect(comp.problems.isEmpty)
        #expect(d.giflibSavedImages == 0)
        #expect(d.handlesOpened == 1)
        #expect(pixel(comp.canvas, 3, 3) == Self.white)     // frame 2999: (3, 3), index 3
    }

    @Test func corpusFileIndexesWithoutWarnings() throws {
        let path = Corpus.root + "/inputs/gif/image-gif/gifplayer-muybridge.gif"
        let d = try GIFDecoder(source: ByteSource(path: path), options: DecodeOptions())
        #expect(d.info.frameCount == 380)
        #expect(d.info.warnings.isEmpty)
        // Every recorded offset points at an image separator.
        let bytes = try ByteSource(path: path).allBytes()
        #expect(d.entries.allSatisfy { bytes[$0.offset] == 0x2C && $0.complete })
    }
}
