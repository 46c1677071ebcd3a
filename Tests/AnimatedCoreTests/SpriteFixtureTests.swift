import Foundation
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Sheets, atlases and sequences decoded from the PNG fixtures written by
/// Tests/Fixtures/sprites/make-fixtures.py.
@Suite struct SpriteFixtureTests {
    let root = SpriteFixtures.root

    func decodeOne(_ path: String) throws -> Canvas {
        try Compositor(decoder: AnimationLoader.open(path: path)).frame(at: 0)
    }

    @Test func gridSheetFramesEqualTheCellsCutByHand() throws {
        let spec = SpriteSheetSpec(layout: .grid(SpriteGrid(columns: 4, rows: 3, margin: 1, spacing: 2)))
        let sheetFrames = try spriteFramesForwardAndBackward { try SpriteSheetDecoder(path: root + "/grid/sheet.png", spec: spec) }
        // The generator wrote each cell separately as frame1.png ... frame12.png.
        let cellFrames = try spriteFramesForwardAndBackward { try FrameSequenceDecoder(folder: root + "/grid/frames") }
        #expect(sheetFrames.count == 12 && cellFrames.count == 12)
        for k in 0..<12 {
            #expect(sheetFrames[k] == cellFrames[k], "cell \(k)")
            let want = (0..<5).flatMap { y in (0..<6).flatMap { x in SpriteFixtures.pattern(k, x, y) } }
            #expect(sheetFrames[k] == want, "cell \(k)")
        }
    }

    @Test func webpSheetCutsLikeThePNGSheet() throws {
        let spec = SpriteSheetSpec(layout: .grid(SpriteGrid(columns: 4, rows: 3, margin: 1, spacing: 2)), frameLimit: 7)
        let webp = try spriteFramesForwardAndBackward { try SpriteSheetDecoder(path: root + "/grid/sheet.webp", spec: spec) }
        let png = try spriteFramesForwardAndBackward { try SpriteSheetDecoder(path: root + "/grid/sheet.png", spec: spec) }
        // Equal under the corpus rule: fully transparent pixels match whatever their colour.
        #expect(webp.count == 7)
        for k in 0..<7 { #expect(Corpus.mismatch(webp[k], png[k], width: 6, tolerance: 0) == nil, "cell \(k)") }
        #expect(webp.allSatisfy { $0.contains { $0 != 0 } })
    }

    @Test(arguments: ["tp-hash.json", "tp-array.json"])
    func texturePackerFramesAreUntrimmedAndUnrotated(_ json: String) throws {
        let atlas = try AtlasParser.load(path: root + "/atlas/" + json)
        let make = { try SpriteSheetDecoder(path: root + "/atlas/tp-sheet.png", spec: SpriteSheetSpec(layout: .atlas(atlas, tag: nil))) }
        let d = try make()
        #expect(d.info.width == 8 && d.info.height == 6 && d.info.frameCount == 4)
        #expect(d.info.frames.allSatisfy { $0.keyframe })
        let frames = try spriteFramesForwardAndBackward(make)
        for k in 0..<4 {
            let want = try decodeOne(root + "/atlas/tp-expected-\(k).png").snapshot()
            #expect(frames[k] == want, "sprite \(k)")
        }
    }

    @Test func asepriteTagsPlayInTheirDirections() throws {
        let atlas = try AtlasParser.load(path: root + "/atlas/ase.json")
        let sheet = try decodeOne(root + "/atlas/ase-sheet.png")
        for (tag, order) in [("walk", [0, 1, 2, 3]), ("back", [3, 2, 1, 0]), ("bounce", [1, 2, 3, 4, 3, 2]),
                             ("bounce-back", [5, 4, 3, 2, 3, 4])] {
            let spec = SpriteSheetSpec(layout: .atlas(atlas, tag: tag))
            let frames = try spriteFramesForwardAndBackward { try SpriteSheetDecoder(path: root + "/atlas/ase-sheet.png", spec: spec) }
            #expect(frames == order.map { SpriteFixtures.crop(sheet, FrameRect(x: $0 * 5, y: 0, width: 5, height: 4)) }, "\(tag)")
            let info = try SpriteSheetDecoder(path: root + "/atlas/ase-sheet.png", spec: spec).info
            #expect(info.frames.map(\.delayMs) == order.map { 100 + 20 * Double($0) }, "\(tag)")
        }
    }

    @Test func mixedSizesAreCentredOnTheLargestCanvas() throws {
        let make = { try FrameSequenceDecoder(folder: root + "/mixed", delayMs: 50) }
        let d = try make()
        #expect(d.files.map { String($0.split(separator: "/").last!) } == ["a1.png", "a2.png", "a10.png"])
        #expect(d.info.format == .frameSequence)
        #expect(d.info.width == 7 && d.info.height == 6)
        #expect(d.info.frames.map(\.rect) == [FrameRect(x: 1, y: 1, width: 4, height: 4),
                                              FrameRect(x: 0, y: 1, width: 7, height: 3),
                                              FrameRect(x: 2, y: 0, width: 2, height: 6)])
        #expect(d.info.frames.allSatisfy { $0.keyframe && $0.delayMs == 50 })
        #expect(d.info.warnings.contains("images differ in size (3 sizes): each is centred on the 7x6 canvas"))
        let frames = try spriteFramesForwardAndBackward(make)
        for (i, name) in ["a1", "a2", "a10"].enumerated() {
            let image = try decodeOne(root + "/mixed/\(name).png")
            let r = d.info.frames[i].rect
            var want = [UInt8](repeating: 0, count: 7 * 6 * 4)
            for y in 0..<r.height { for x in 0..<r.width { for k in 0..<4 {
                want[((r.y + y) * 7 + r.x + x) * 4 + k] = image.pixels[(y * r.width + x) * 4 + k]
            } } }
            #expect(frames[i] == want, "\(name)")
        }
    }

    @Test func badFilesAreFrameProblemsAndPlaybackGoesOn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sprite-seq-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = try Data(contentsOf: URL(fileURLWithPath: root + "/mixed/a1.png"))
        try good.write(to: URL(fileURLWithPath: dir + "/f1.png"))
        try good.prefix(good.count - 20).write(to: URL(fileURLWithPath: dir + "/f2.png"))     // truncated pixels
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: dir + "/f3.png"))
        try good.write(to: URL(fileURLWithPath: dir + "/f4.png"))
        let files = (1...4).map { dir + "/f\($0).png" }
        let d = try FrameSequenceDecoder(files: files)
        #expect(d.info.frameCount == 4)
        #expect(d.info.warnings.contains { $0.hasPrefix(files[2]) })      // f3's header is unreadable
        let c = try Compositor(decoder: d)
        for i in 0..<4 { c.frame(at: i) }
        #expect(c.problems[0] == nil && c.problems[3] == nil)
        #expect(c.problems[2]?.contains("f3.png") == true)
        #expect(c.problems[1]?.contains("f2.png") == true)
        #expect(c.frame(at: 3).snapshot() == c.frame(at: 0).snapshot())
    }

    @Test func sampleSheetPlaysAsGridAndAsAtlas() throws {
        let sample = Corpus.fixtures + "/../../samples/walk-sheet"
        let atlas = try AtlasParser.load(path: sample + ".json")
        #expect(atlas.exporter == .aseprite && atlas.tags.map(\.name) == ["walk", "step-back", "stride"])
        let byAtlas = try spriteFramesForwardAndBackward {
            try SpriteSheetDecoder(path: sample + ".png", spec: SpriteSheetSpec(layout: .atlas(atlas, tag: "walk")))
        }
        let byGrid = try spriteFramesForwardAndBackward {
            try SpriteSheetDecoder(path: sample + ".png", spec: SpriteSheetSpec(layout: .grid(SpriteGrid(columns: 4, rows: 2))))
        }
        #expect(byAtlas.count == 8 && byAtlas == byGrid)
        #expect(Set(byGrid).count == 8)            // eight distinct poses
    }
}
