#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct SpriteSequenceTests {
    @Test func naturalOrder() {
        #expect(NaturalSort.sorted(["frame10.png", "frame2.png", "frame1.png", "Frame3.png"])
                == ["frame1.png", "frame2.png", "Frame3.png", "frame10.png"])
        #expect(NaturalSort.sorted(["x1y10", "x1y9", "x01y9", "x1"]) == ["x1", "x1y9", "x01y9", "x1y10"])
        #expect(NaturalSort.sorted(["walk_000100", "walk_99", "walk_0099", "walk_100"])
                == ["walk_99", "walk_0099", "walk_100", "walk_000100"])
        // Digit runs longer than any integer compare by length, not by overflowing.
        #expect(NaturalSort.less("a9", "a99999999999999999999999999"))
        #expect(!NaturalSort.less("a99999999999999999999999999", "a9"))
        #expect(NaturalSort.less("", "a") && NaturalSort.less("a", "a0") && NaturalSort.less("a.png", "b.png"))
        #expect(NaturalSort.compare("same", "same") == 0)
        // A total order: case differences still sort deterministically.
        #expect(NaturalSort.compare("A", "a") != 0 && NaturalSort.compare("A", "a") == -NaturalSort.compare("a", "A"))
    }

    @Test func folderListsImagesInNaturalOrder() throws {
        let listing = try ImageFolder.list(SpriteFixtures.root + "/grid/frames")
        #expect(listing.files.map { String($0.split(separator: "/").last!) } == (1...12).map { "frame\($0).png" })
        #expect(listing.skipped == 1)                   // notes.txt
        #expect(ImageFolder.isDirectory(SpriteFixtures.root + "/grid/frames"))
        #expect(!ImageFolder.isDirectory(SpriteFixtures.root + "/grid/sheet.png"))
        #expect(throws: AnimatedError.self) { try ImageFolder.list(SpriteFixtures.root + "/no-such-folder") }
    }

    @Test func folderWithOnlySubfoldersSaysSo() throws {
        var template = Array("/tmp/animplay-folder-XXXXXX".utf8CString)
        let dir = String(cString: mkdtemp(&template)!)
        defer { for d in ["/a/b", "/a", "/c", ""] { rmdir(dir + d) } }
        #expect(FolderMessage.of(dir)?.hasSuffix("the folder is empty") == true)
        mkdir(dir + "/a", 0o755)
        #expect(FolderMessage.of(dir)?.hasSuffix("no \(CoderRegistry.shared.formatList) images in the folder (1 subfolder, which is not searched)") == true)
        for d in ["/a/b", "/c"] { mkdir(dir + d, 0o755) }
        #expect(try ImageFolder.list(dir).subfolders == 2)
        #expect(FolderMessage.of(dir)?.hasSuffix("no \(CoderRegistry.shared.formatList) images in the folder (2 subfolders, which are not searched)") == true)
    }
}

private enum FolderMessage {
    static func of(_ dir: String) -> String? {
        do { _ = try FrameSequenceDecoder(folder: dir); return nil } catch { return error.description }
    }
}

@Suite struct SequenceTimingTests {
    @Test func filesWithTheirOwnDelays() throws {
        let files = (1...3).map { SpriteFixtures.root + "/grid/frames/frame\($0).png" }
        let d = try FrameSequenceDecoder(files: files, delaysMs: [100, 100, 300])
        #expect(d.info.frames.map(\.delayMs) == [100, 100, 300] && d.info.durationMs == 500)
        let e = #expect(throws: AnimatedError.self) { try FrameSequenceDecoder(files: files, delaysMs: [100, 300]) }
        #expect(e?.message == "2 delays given for 3 frames: give one per frame")
        // With --frames, the delays count the frames kept.
        #expect(try FrameSequenceDecoder(files: files, delaysMs: [50, 70], frameLimit: 2).info.frames.map(\.delayMs) == [50, 70])
    }

    @Test func imagesInMemoryWithDurations() throws {
        let a = Canvas(width: 4, height: 2), b = Canvas(width: 2, height: 4)
        a.withUnsafeMutableBytes { $0.storeBytes(of: 0xFF0000FF as UInt32, as: UInt32.self) }
        let d = try ImageSequenceDecoder(images: [a, b], durationsMs: [40, 160], plays: 2)
        #expect(d.info.width == 4 && d.info.height == 4 && d.info.plays == 2)
        #expect(d.info.frames.map(\.delayMs) == [40, 160] && d.info.displayMs(at: 0) == 40)
        let comp = try Compositor(decoder: d)
        let f0 = comp.frame(at: 0).snapshot()
        #expect(f0[(1 * 4 + 0) * 4 + 3] == 0xFF && f0[3] == 0)          // a is centred: row 1, column 0
        #expect(comp.frame(at: 1).snapshot()[(1 * 4 + 0) * 4 + 3] == 0)  // b covers columns 1-2 only
        #expect(throws: AnimatedError.self) { try ImageSequenceDecoder(images: [a], durationsMs: [1, 2]) }
    }
}

/// An animation among a sequence's files gives every frame, composited as it plays on its own.
@Suite struct AnimationsInSequenceTests {
    static let gif = Corpus.fixtures + "/../../samples/bounce.gif"      // 96x96, 20 frames
    static let webp = Corpus.fixtures + "/../../samples/pulse.webp"     // 64x64, 16 frames
    static let still = SpriteFixtures.root + "/grid/frames/frame1.png"  // 6x5

    /// The pixels of `canvas` in `rect` (RGBA rows), and whether every pixel outside it is clear.
    static func region(_ canvas: Canvas, _ rect: FrameRect) -> (inside: [UInt8], clearOutside: Bool) {
        let all = canvas.snapshot()
        var inside: [UInt8] = [], clear = true
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let p = Array(all[(y * canvas.width + x) * 4..<(y * canvas.width + x) * 4 + 4])
                if rect.x <= x && x < rect.x + rect.width && rect.y <= y && y < rect.y + rect.height { inside += p } else if p[3] != 0 { clear = false }
            }
        }
        return (inside, clear)
    }

    @Test func everyFrameOfEachAnimationInTurnWithItsOwnTimes() throws {
        let d = try FrameSequenceDecoder(files: [Self.gif, Self.still, Self.webp], delayMs: 250)
        let g = try AnimationLoader.open(path: Self.gif), w = try AnimationLoader.open(path: Self.webp)
        #expect(d.info.frameCount == 20 + 1 + 16 && d.info.width == 96 && d.info.height == 96)
        let own = { (a: any AnimationDecoder) in a.info.frames.map { a.info.timing.displayMs($0.delayMs) } }
        #expect(d.info.frames.map(\.delayMs) == own(g) + [250] + own(w))
        #expect(d.info.frames[3].source == FrameSource(file: Self.gif, fileFrame: 3))
        #expect(d.info.frames[20].source == FrameSource(file: Self.still) && d.info.warnings.allSatisfy { !$0.contains("animated") })
        let sequence = try Compositor(decoder: d), gc = try Compositor(decoder: g), wc = try Compositor(decoder: w)
        var frames: [[UInt8]] = []
        for k in 0..<d.info.frameCount { frames.append(sequence.frame(at: k).snapshot()) }
        for k in 0..<20 { #expect(frames[k] == gc.frame(at: k).snapshot(), "gif frame \(k)") }
        let centred = FrameRect(x: 16, y: 16, width: 64, height: 64)
        for k in 0..<16 {
            let c = Canvas(width: 96, height: 96)
            c.withUnsafeMutableBytes { b in frames[21 + k].withUnsafeBytes { b.copyMemory(from: $0) } }
            let (inside, clear) = Self.region(c, centred)
            #expect(inside == wc.frame(at: k).snapshot() && clear, "webp frame \(k)")
        }
        // In any order, the same pictures (a new animation's frames composite from its start).
        let again = try Compositor(decoder: FrameSequenceDecoder(files: [Self.gif, Self.still, Self.webp], delayMs: 250))
        for k in [30, 3, 36, 0, 21, 19, 20, 5, 22, 35] { #expect(again.frame(at: k).snapshot() == frames[k], "frame \(k)") }
    }

    /// A frame that is not a keyframe in its file is not one joined: a player going backwards
    /// then composites on from a keyframe instead of asking for each frame alone (each a replay
    /// within the file). Backwards, the pictures are still the file's own.
    @Test func framesThatAreNotKeyframesInTheirFileAreNotKeyframesJoined() throws {
        let delta = Corpus.root + "/inputs/gif/pygif/dispose-restore-previous.gif"   // 2x2, 5 frames
        let m = try AnimationLoader.open(path: delta)
        let own = m.info.frames.map(\.keyframe), n = m.info.frameCount
        #expect(own.contains(false))
        let d = try FrameSequenceDecoder(files: [delta, Self.still, delta])
        #expect(d.info.frames.map(\.keyframe) == own + [true] + own)
        let joined = try Compositor(decoder: d), alone = try Compositor(decoder: m)
        let place = FrameRect(x: 2, y: 1, width: 2, height: 2)           // centred on the still's 6x5
        for k in (0..<(2 * n + 1)).reversed() where k != n {
            let (inside, clear) = Self.region(joined.frame(at: k), place)
            #expect(inside == alone.frame(at: k % (n + 1)).snapshot() && clear, "frame \(k)")
        }
    }

    @Test func frameLimitsCountFramesAndDelayListsAreForStills() throws {
        let files = [Self.gif, Self.still, Self.webp]
        let cut = try FrameSequenceDecoder(files: files, frameLimit: 25)
        #expect(cut.info.frameCount == 25 && cut.files == files && cut.info.frames[24].source == FrameSource(file: Self.webp, fileFrame: 3))
        #expect(try FrameSequenceDecoder(files: files, frameLimit: 20).files == [Self.gif])
        let over = #expect(throws: AnimatedError.self) { try FrameSequenceDecoder(files: files, frameLimit: 38) }
        #expect(over?.message == "38 frames asked for, but there are 37 frames")
        let listed = #expect(throws: AnimatedError.self) { try FrameSequenceDecoder(files: files, delaysMs: [1, 2, 3]) }
        #expect(listed?.message == "\(Self.gif) is animated: its frames keep their own delays, so give no delay list")
    }
}

/// What a joined animation plays: its animations' count when they agree, else forever.
@Suite struct JoinedPlaysTests {
    /// `path` written again as a GIF that plays `plays` times, to a temporary file.
    static func gif(_ path: String, plays: Int) throws -> String {
        let d = try AnimationLoader.open(path: path)
        let sink = MemorySink()
        let encoder = try AnimationEncoders.make(.gif, width: d.info.width, height: d.info.height, plays: plays,
                                                 options: EncoderOptions(), sink: sink)
        try Transcoder().run(try Compositor(decoder: d), into: encoder)
        var template = Array("/tmp/animplay-plays-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        let name = String(cString: template)
        _ = sink.bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return name
    }

    @Test func animationsThatAgreeKeepTheirPlays() throws {
        let once = try Self.gif(AnimationsInSequenceTests.gif, plays: 1), twice = try Self.gif(AnimationsInSequenceTests.gif, plays: 2)
        defer { unlink(once); unlink(twice) }
        #expect(try AnimationLoader.open(path: once).info.plays == 1)
        #expect(try FrameSequenceDecoder(files: [once, once]).info.plays == 1)
        #expect(try FrameSequenceDecoder(files: [once, twice]).info.plays == 0)
        #expect(try FrameSequenceDecoder(files: [once, AnimationsInSequenceTests.still]).info.plays == 0)
        #expect(try FrameSequenceDecoder(files: [AnimationsInSequenceTests.still, AnimationsInSequenceTests.still]).info.plays == 0)
    }
}
