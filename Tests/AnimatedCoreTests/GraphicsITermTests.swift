import Testing
@testable import AnimatedCore

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
        let png = try base64(Array(bytes[(colon + 1)..<(bytes.count - 1)]))
        #expect(image.arguments["size"] == String(png.count))
        let decoder = try AnimationLoader.open(ByteSource(bytes: png))
        let canvas = try Compositor(decoder: decoder).frame(at: 0)
        image.width = canvas.width; image.height = canvas.height
        image.rgba = Array(canvas.pixels)
        return image
    }

    static func base64(_ text: [UInt8]) throws -> [UInt8] {
        func value(_ c: UInt8) throws -> UInt32 {
            switch c {
            case 0x41...0x5A: return UInt32(c - 0x41)
            case 0x61...0x7A: return UInt32(c - 0x61 + 26)
            case 0x30...0x39: return UInt32(c - 0x30 + 52)
            case 0x2B: return 62
            case 0x2F: return 63
            default: throw Failure.badBase64
            }
        }
        guard text.count % 4 == 0 else { throw Failure.badBase64 }
        var out: [UInt8] = []
        var i = 0
        while i < text.count {
            let pad = (text[i + 2] == 0x3D ? 1 : 0) + (text[i + 3] == 0x3D ? 1 : 0)
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 6 | (k >= 4 - pad ? 0 : try value(text[i + k])) }
            out.append(UInt8(v >> 16))
            if pad < 2 { out.append(UInt8((v >> 8) & 0xFF)) }
            if pad < 1 { out.append(UInt8(v & 0xFF)) }
            i += 4
        }
        return out
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

    @Test func base64MatchesTheStandardVectors() {
        // RFC 4648 section 10.
        for (plain, coded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                               ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")] {
            var out: [UInt8] = []
            Array(plain.utf8).withUnsafeBytes { Base64.encode($0, into: &out) }
            #expect(String(decoding: out, as: UTF8.self) == coded)
        }
    }
}
