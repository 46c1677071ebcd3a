import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Parses an iTerm2 inline image sequence back: its arguments and the decoded image (base64 →
/// PNG → pixels through the project's own PNG reader).
struct ITermTestImage {
    var arguments: [String: String] = [:]
    var width = 0, height = 0
    var rgba: [UInt8] = []

    enum Failure: Error { case notOSC1337, noTerminator, badBase64 }

    static func decode(_ bytes: [UInt8]) throws -> ITermTestImage {
        let prefix = Array("\u{1B}]1337;File=".utf8)
        guard bytes.starts(with: prefix) else { throw Failure.notOSC1337 }
        guard bytes.last == 0x07, let colon = bytes.firstIndex(of: 0x3A) else { throw Failure.noTerminator }
        var image = ITermTestImage()
        for pair in String(decoding: bytes[prefix.count..<colon], as: UTF8.self).split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            image.arguments[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
        }
        guard let png = Base64.decode(bytes[(colon + 1)..<(bytes.count - 1)]) else { throw Failure.badBase64 }
        #expect(image.arguments["size"] == String(png.count))
        let decoder = try AnimationLoader.open(ByteSource(bytes: png))
        let canvas = try Compositor(decoder: decoder).frame(at: 0)
        image.width = canvas.width; image.height = canvas.height
        image.rgba = Array(canvas.pixels)
        return image
    }
}

@Suite struct GraphicsITermTests {
    @Test func inlineImageParsesBackToTheFrame() throws {
        for (w, h) in [(37, 23), (160, 90), (1, 1), (2, 1)] {   // every base64 padding case
            let f = gradientFrame(w, h)
            let out = ITermImageEncoder(background: .terminal).encode(f, columns: 12, rows: 5)
            let img = try ITermTestImage.decode(out)
            #expect(img.arguments["inline"] == "1" && img.arguments["width"] == "12" && img.arguments["height"] == "5")
            #expect(img.arguments["preserveAspectRatio"] == "0" && img.arguments["doNotMoveCursor"] == "1")
            #expect(img.width == w && img.height == h)
            // Lossless: the image equals the frame (opaque, so flattening changed nothing).
            #expect(img.rgba == f.pixels, "\(w)x\(h)")
        }
    }

    @Test func transparentPixelsAreFlattenedOverTheBackground() throws {
        let f = solidFrame(4, 4, (200, 0, 0, 128))
        let img = try ITermTestImage.decode(ITermImageEncoder(background: .color(0, 0, 255)).encode(f, columns: 1, rows: 1))
        let expected = OpaqueFrame(f, background: .color(0, 0, 255))
        for k in 0..<16 {
            #expect(Array(img.rgba[k * 4..<k * 4 + 4]) == [expected.rgb[k * 3], expected.rgb[k * 3 + 1], expected.rgb[k * 3 + 2], 255])
        }
        #expect(expected.rgb[0] == 100 && expected.rgb[2] == 127)
    }
}
