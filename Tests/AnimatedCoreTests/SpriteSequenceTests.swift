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
