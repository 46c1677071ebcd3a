import Foundation
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct SpriteSheetDecoderTests {
    static let magenta: [UInt8] = [255, 0, 255, 255]

    /// 4x3 cells of 6x5 with margin 1 and spacing 2 (32x21), gutters magenta, as the fixture.
    static func gridSheet() -> Canvas {
        SpriteFixtures.canvas(32, 21) { x, y in
            let cx = (x - 1) % 8, cy = (y - 1) % 7
            guard x >= 1, y >= 1, x < 31, y < 20, cx < 6, cy < 5 else { return magenta }
            return SpriteFixtures.pattern((y - 1) / 7 * 4 + (x - 1) / 8, cx, cy)
        }
    }

    @Test func gridFramesEqualTheCellsCutByHand() throws {
        let sheet = Self.gridSheet()
        let spec = SpriteSheetSpec(layout: .grid(SpriteGrid(columns: 4, rows: 3, margin: 1, spacing: 2)))
        let frames = try spriteFramesForwardAndBackward { try SpriteSheetDecoder(sheet: sheet, spec: spec) }
        #expect(frames.count == 12)
        for k in 0..<12 {
            let cell = FrameRect(x: 1 + (k % 4) * 8, y: 1 + (k / 4) * 7, width: 6, height: 5)
            #expect(frames[k] == SpriteFixtures.crop(sheet, cell), "cell \(k)")
            // And the pattern itself (no magenta gutter leaked in).
            let want = (0..<5).flatMap { y in (0..<6).flatMap { x in SpriteFixtures.pattern(k, x, y) } }
            #expect(frames[k] == want, "cell \(k)")
        }
    }

    @Test func gridFramesAreIndependentKeyframes() throws {
        let spec = SpriteSheetSpec(layout: .grid(SpriteGrid(columns: 4, rows: 3, margin: 1, spacing: 2)), delayMs: 8)
        let d = try SpriteSheetDecoder(sheet: Self.gridSheet(), spec: spec)
        let info = d.info
        #expect(info.format == .spriteSheet)
        #expect(info.width == 6 && info.height == 5 && info.frameCount == 12 && info.plays == 0)
        #expect(info.frames.allSatisfy { $0.keyframe && $0.blend == .source && $0.dispose == .none })
        #expect(info.frames[5].source == FrameSource(sheetRect: FrameRect(x: 9, y: 8, width: 6, height: 5)))
        // A sprite delay is shown as given: no browser minimum for 8 ms.
        #expect(info.displayMs(at: 0) == 8)
        // Replaying any frame decodes only that frame.
        let c = try Compositor(decoder: d)
        c.frame(at: 9)
        #expect(c.framesDecoded == 1)
    }

    @Test func infoJSONListsEveryFrameWithItsRects() throws {
        let sheet = Canvas(width: 256, height: 128)
        let d = try SpriteSheetDecoder(sheet: sheet, spec: SpriteSheetSpec(layout: .grid(SpriteGrid(columns: 8, rows: 4))))
        let json = InfoReport.json(d.info, file: "sheet.png")
        let obj = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(obj["format"] as? String == "sprite-sheet")
        #expect(obj["frameCount"] as? Int == 32)
        let frames = try #require(obj["frames"] as? [[String: Any]])
        #expect(frames.count == 32)
        let f = frames[13], src = try #require(f["source"] as? [String: Any])
        #expect(f["x"] as? Int == 0 && f["y"] as? Int == 0 && f["width"] as? Int == 32 && f["height"] as? Int == 32)
        #expect(src["x"] as? Int == 160 && src["y"] as? Int == 32 && src["width"] as? Int == 32 && src["rotated"] as? Bool == false)
        #expect(InfoReport.text(d.info, file: "sheet.png").contains("from 32x32+160+32"))
    }

    @Test func rotatedFrameIsTurnedBack() throws {
        // Sprite a b c / d e f, stored 90° clockwise as d a / e b / f c.
        let px: [Character: [UInt8]] = ["a": [1, 0, 0, 255], "b": [2, 0, 0, 255], "c": [3, 0, 0, 255],
                                        "d": [4, 0, 0, 255], "e": [5, 0, 0, 200], "f": [6, 0, 0, 0]]
        let stored: [[Character]] = [["d", "a"], ["e", "b"], ["f", "c"]]
        let sheet = SpriteFixtures.canvas(2, 3) { x, y in px[stored[y][x]]! }
        let atlas = try AtlasParser.parse(SpriteFixtures.bytes(#"{"frames":[{"frame":{"x":0,"y":0,"w":3,"h":2},"rotated":true}]}"#))
        let d = try SpriteSheetDecoder(sheet: sheet, spec: SpriteSheetSpec(layout: .atlas(atlas, tag: nil)))
        #expect(d.info.width == 3 && d.info.height == 2)
        let got = try Compositor(decoder: d).frame(at: 0).snapshot()
        #expect(got == "abcdef".flatMap { px[$0]! })
    }

    @Test func trimmedFramesClearTheRestOfTheCanvas() throws {
        // Frame 0 fills a 4x4 canvas; frame 1 is trimmed to 2x1 at (1,2); frame 2 fills again.
        let sheet = SpriteFixtures.canvas(6, 4) { x, y in x < 4 ? [9, 9, 9, 255] : [UInt8(x), UInt8(y), 7, 255] }
        let json = #"""
        {"frames":[
          {"frame":{"x":0,"y":0,"w":4,"h":4},"trimmed":false,"spriteSourceSize":{"x":0,"y":0,"w":4,"h":4},"sourceSize":{"w":4,"h":4}},
          {"frame":{"x":4,"y":1,"w":2,"h":1},"trimmed":true,"spriteSourceSize":{"x":1,"y":2,"w":2,"h":1},"sourceSize":{"w":4,"h":4}},
          {"frame":{"x":0,"y":0,"w":4,"h":4}}]}
        """#
        let atlas = try AtlasParser.parse(SpriteFixtures.bytes(json))
        let make = { try SpriteSheetDecoder(sheet: sheet, spec: SpriteSheetSpec(layout: .atlas(atlas, tag: nil))) }
        let info = try make().info
        #expect(info.frames.map(\.dispose) == [.background, .none, .none])
        #expect(info.frames.allSatisfy { $0.keyframe })
        let frames = try spriteFramesForwardAndBackward(make)
        var want = [UInt8](repeating: 0, count: 4 * 4 * 4)
        want.replaceSubrange(((2 * 4 + 1) * 4)..<((2 * 4 + 3) * 4), with: [4, 1, 7, 255, 5, 1, 7, 255])
        #expect(frames[1] == want)
        #expect(frames[0] == frames[2] && frames[0] == [UInt8](repeating: 0, count: 64).indices.map { $0 % 4 == 3 ? 255 : 9 })
    }

    @Test func clippedRectDrawsOnlyTheInsidePart() throws {
        let sheet = SpriteFixtures.canvas(8, 4) { x, y in SpriteFixtures.pattern(0, x, y) }
        let atlas = try AtlasParser.parse(SpriteFixtures.bytes(#"{"frames":[{"frame":{"x":6,"y":2,"w":4,"h":3},"trimmed":true,"sourceSize":{"w":5,"h":4},"spriteSourceSize":{"x":1,"y":1,"w":4,"h":3}}]}"#))
        let d = try SpriteSheetDecoder(sheet: sheet, spec: SpriteSheetSpec(layout: .atlas(atlas, tag: nil)))
        #expect(d.info.width == 5 && d.info.height == 4)
        #expect(d.info.frames[0].rect == FrameRect(x: 1, y: 1, width: 2, height: 2))
        #expect(d.info.warnings.count == 1)
        let c = try Compositor(decoder: d).frame(at: 0)
        #expect(SpriteFixtures.crop(c, FrameRect(x: 1, y: 1, width: 2, height: 2)) == SpriteFixtures.crop(sheet, FrameRect(x: 6, y: 2, width: 2, height: 2)))
        // Everything else stays transparent.
        var rest = c.snapshot()
        for y in 1...2 { for x in 1...2 { for k in 0..<4 { rest[(y * 5 + x) * 4 + k] = 0 } } }
        #expect(rest.allSatisfy { $0 == 0 })
    }

    @Test func hostileAtlasSizesHitTheLimitsBeforeAllocating() throws {
        let atlas = try AtlasParser.parse(SpriteFixtures.bytes(#"{"frames":[{"frame":{"x":0,"y":0,"w":1,"h":1},"sourceSize":{"w":16000000,"h":16000000}}]}"#))
        #expect(throws: AnimatedError.self) {
            try SpriteSheetDecoder(sheet: Canvas(width: 2, height: 2), spec: SpriteSheetSpec(layout: .atlas(atlas, tag: nil)))
        }
    }
}
