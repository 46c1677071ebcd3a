import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct SpriteAtlasTests {
    @Test func texturePackerHash() throws {
        let a = try AtlasParser.parse(SpriteFixtures.file("atlas/tp-hash.json"))
        #expect(a.exporter == .texturePacker)
        #expect(a.imageName == "tp-sheet.png")
        #expect(a.tags.isEmpty)
        #expect(a.frames.map(\.name) == ["sprite0.png", "sprite1.png", "sprite2.png", "sprite3.png"])
        #expect(a.frames.map(\.rotated) == [false, false, true, true])
        // Trimmed sprite: 4x4 of pixels at (2,1) inside an 8x6 source.
        let t = a.frames[1]
        #expect(t.frame == FrameRect(x: 9, y: 1, width: 4, height: 4))
        #expect(t.offsetX == 2 && t.offsetY == 1 && t.sourceWidth == 8 && t.sourceHeight == 6)
        // Rotated and trimmed: a 5x3 sprite stored 3 wide and 5 tall.
        let r = a.frames[3]
        #expect(r.frame.width == 5 && r.frame.height == 3)
        #expect(r.sheetRect == FrameRect(x: r.frame.x, y: 1, width: 3, height: 5))
        #expect(r.offsetX == 1 && r.offsetY == 2)
        #expect(a.frames.allSatisfy { $0.durationMs == nil })
    }

    @Test func texturePackerArrayMatchesHash() throws {
        let hash = try AtlasParser.parse(SpriteFixtures.file("atlas/tp-hash.json"))
        let array = try AtlasParser.parse(SpriteFixtures.file("atlas/tp-array.json"))
        #expect(array == hash)
    }

    @Test func asepriteFramesDurationsAndTags() throws {
        let a = try AtlasParser.parse(SpriteFixtures.file("atlas/ase.json"))
        #expect(a.exporter == .aseprite)
        #expect(a.frames.count == 6)
        #expect(a.frames.map(\.name) == (0..<6).map { "walk \($0).aseprite" })
        #expect(a.frames.map(\.durationMs) == [100, 120, 140, 160, 180, 200])
        #expect(a.tags.map(\.name) == ["walk", "back", "bounce", "bounce-back", "still"])
        #expect(try a.playOrder(tag: nil) == [0, 1, 2, 3, 4, 5])
        #expect(try a.playOrder(tag: "walk") == [0, 1, 2, 3])
        #expect(try a.playOrder(tag: "back") == [3, 2, 1, 0])
        // Ping-pong: there and back without repeating the end frames.
        #expect(try a.playOrder(tag: "bounce") == [1, 2, 3, 4, 3, 2])
        #expect(try a.playOrder(tag: "bounce-back") == [5, 4, 3, 2, 3, 4])
        #expect(try a.playOrder(tag: "still") == [5])
    }

    @Test func pingpongOfTwoFramesAlternates() {
        #expect(AtlasTag(name: "t", from: 3, to: 4, direction: .pingpong).playOrder == [3, 4])
        #expect(AtlasTag(name: "t", from: 3, to: 4, direction: .reverse).playOrder == [4, 3])
    }

    @Test func unknownTagListsTheTags() throws {
        let a = try AtlasParser.parse(SpriteFixtures.file("atlas/ase.json"))
        #expect(throws: AnimatedError.invalid(#"no tag "run"; the atlas has "walk", "back", "bounce", "bounce-back", "still""#)) {
            try a.playOrder(tag: "run")
        }
        let tp = try AtlasParser.parse(SpriteFixtures.file("atlas/tp-hash.json"))
        #expect(throws: AnimatedError.invalid(#"no tag "run": the atlas has no tags"#)) { try tp.playOrder(tag: "run") }
    }

    @Test func taggedLayoutUsesDurations() throws {
        let a = try AtlasParser.parse(SpriteFixtures.file("atlas/ase.json"))
        let layout = try SpriteSheetSpec(layout: .atlas(a, tag: "bounce")).resolve(sheetWidth: 30, sheetHeight: 4)
        #expect(layout.frames.map(\.delayMs) == [120, 140, 160, 180, 160, 140])
        #expect(layout.frames.map(\.sheetRect.x) == [5, 10, 15, 20, 15, 10])
        #expect(layout.width == 5 && layout.height == 4)
        // An explicit delay wins over the atlas's durations.
        let fixed = try SpriteSheetSpec(layout: .atlas(a, tag: "walk"), delayMs: 50).resolve(sheetWidth: 30, sheetHeight: 4)
        #expect(fixed.frames.map(\.delayMs) == [50, 50, 50, 50])
        // --frames keeps the first N of the play order.
        let cut = try SpriteSheetSpec(layout: .atlas(a, tag: "back"), frameLimit: 2).resolve(sheetWidth: 30, sheetHeight: 4)
        #expect(cut.frames.map(\.sheetRect.x) == [15, 10])
    }

    @Test func trimmedAndRotatedPlacements() throws {
        let a = try AtlasParser.parse(SpriteFixtures.file("atlas/tp-hash.json"))
        let layout = try SpriteSheetSpec(layout: .atlas(a, tag: nil)).resolve(sheetWidth: 30, sheetHeight: 10)
        #expect(layout.width == 8 && layout.height == 6)
        #expect(layout.frames.map(\.placement) == [
            FrameRect(x: 0, y: 0, width: 8, height: 6),
            FrameRect(x: 2, y: 1, width: 4, height: 4),
            FrameRect(x: 0, y: 0, width: 8, height: 6),
            FrameRect(x: 1, y: 2, width: 5, height: 3),
        ])
        #expect(layout.frames[2].sheetRect.width == 6 && layout.frames[2].sheetRect.height == 8)
        #expect(layout.warnings.isEmpty)
    }

    @Test func rectsAreClippedToTheSheet() throws {
        let json = #"{"frames":[{"frame":{"x":6,"y":2,"w":4,"h":3}},{"frame":{"x":0,"y":0,"w":2,"h":2}}]}"#
        let a = try AtlasParser.parse(SpriteFixtures.bytes(json))
        let layout = try SpriteSheetSpec(layout: .atlas(a, tag: nil)).resolve(sheetWidth: 8, sheetHeight: 4)
        #expect(layout.frames[0].sheetRect == FrameRect(x: 6, y: 2, width: 2, height: 2))
        #expect(layout.frames[0].placement == FrameRect(x: 0, y: 0, width: 2, height: 2))
        #expect(layout.warnings.count == 1 && layout.warnings[0].contains("4x3+6+2"))
        // Canvas: the largest source size (untrimmed frames: the frame size).
        #expect(layout.width == 4 && layout.height == 3)

        let outside = try AtlasParser.parse(SpriteFixtures.bytes(#"{"frames":{"far":{"frame":{"x":8,"y":0,"w":2,"h":2}}}}"#))
        #expect(throws: AnimatedError.invalid(#"atlas frame "far": rect 2x2+8+0 lies outside the 8x4 sheet"#)) {
            try SpriteSheetSpec(layout: .atlas(outside, tag: nil)).resolve(sheetWidth: 8, sheetHeight: 4)
        }
    }

    @Test func rotatedClippingCutsTheRightSide() throws {
        // A 3x2 sprite stored rotated (2 wide, 3 tall) at (0,1) on a 2x3 sheet: its bottom sheet
        // row is cut off, which is the sprite's last column.
        let json = #"{"frames":[{"frame":{"x":0,"y":1,"w":3,"h":2},"rotated":true}]}"#
        let a = try AtlasParser.parse(SpriteFixtures.bytes(json))
        let f = try SpriteSheetSpec(layout: .atlas(a, tag: nil)).resolve(sheetWidth: 2, sheetHeight: 3).frames[0]
        #expect(f.sheetRect == FrameRect(x: 0, y: 1, width: 2, height: 2))
        #expect(f.placement == FrameRect(x: 0, y: 0, width: 2, height: 2))
        // Its right sheet column cut off instead: that is the sprite's top row.
        let b = try AtlasParser.parse(SpriteFixtures.bytes(#"{"frames":[{"frame":{"x":1,"y":0,"w":3,"h":2},"rotated":true}]}"#))
        let g = try SpriteSheetSpec(layout: .atlas(b, tag: nil)).resolve(sheetWidth: 2, sheetHeight: 3).frames[0]
        #expect(g.sheetRect == FrameRect(x: 1, y: 0, width: 1, height: 3))
        #expect(g.placement == FrameRect(x: 0, y: 1, width: 3, height: 1))
    }

    @Test(arguments: [
        ("[]", "atlas: the document is an array, expected an object"),
        (#"{"meta":{}}"#, #"atlas: no "frames""#),
        (#"{"frames":3}"#, #"atlas: "frames" is a number, expected an object or an array"#),
        (#"{"frames":[]}"#, "atlas: no frames"),
        (#"{"frames":[{}]}"#, #"atlas: frames[0] has no "frame" rect"#),
        (#"{"frames":{"a":{"frame":{"x":0,"y":0,"w":0,"h":2}}}}"#, #"atlas: frame "a".frame.w is 0, expected at least 1"#),
        (#"{"frames":{"a":{"frame":{"x":1.5,"y":0,"w":1,"h":2}}}}"#, #"atlas: frame "a".frame.x is 1.5, expected a whole number up to 16777216"#),
        (#"{"frames":{"a":{"frame":{"x":"1","y":0,"w":1,"h":2}}}}"#, #"atlas: frame "a".frame.x is a string, expected a number"#),
        (#"{"frames":{"a":{"frame":{"x":0,"y":0,"w":1e300,"h":2}}}}"#, #"atlas: frame "a".frame.w is 1e+300, expected a whole number up to 16777216"#),
        (#"{"frames":{"a":{"frame":{"x":0,"y":0,"w":1,"h":2},"rotated":1}}}"#, #"atlas: frame "a".rotated is a number, expected true or false"#),
        (#"{"frames":[{"frame":{"x":0,"y":0,"w":1,"h":1}}],"meta":{"frameTags":[{"name":"t","from":0,"to":0,"direction":"sideways"}]}}"#,
         #"atlas: tag "t" has direction "sideways", expected one of forward, reverse, pingpong, pingpong_reverse"#),
        (#"{"frames":[{"frame":{"x":0,"y":0,"w":1,"h":1}}],"meta":{"frameTags":[{"name":"t","from":0,"to":1}]}}"#,
         #"atlas: tag "t" spans frames 0-1, but there are 1 frames"#),
        (#"{"frames":[{"frame":{"x":0,"y":0,"w":1,"h":1},"duration":-5}]}"#,
         "atlas: frames[0].duration must be a number of milliseconds from 0 to 3600000"),
    ])
    func malformedAtlases(_ json: String, _ message: String) {
        #expect(throws: AnimatedError.invalid(message)) { try AtlasParser.parse(SpriteFixtures.bytes(json)) }
    }

    @Test func multiTextureAtlasIsUnsupported() {
        #expect(throws: AnimatedError.unsupportedFormat("atlas: multi-texture atlases are not supported")) {
            try AtlasParser.parse(SpriteFixtures.bytes(#"{"textures":[]}"#))
        }
    }
}
