#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AnimatedCore

/// A coder for the tests: files starting "TEST" are one opaque frame of the colour in bytes 4–6,
/// of the size in bytes 7 and 8.
private struct TestSolidCoder: ImageCoder {
    var name: String { "TEST" }
    var claimsGIF = false
    func canDecode(head: [UInt8]) -> Bool {
        head.starts(with: Array("TEST".utf8)) || (claimsGIF && head.starts(with: Array("GIF8".utf8)))
    }
    func open(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> any AnimationDecoder {
        let b = try source.bytes(at: 0, length: 9)
        guard b.count == 9, b.starts(with: Array("TEST".utf8)) else { throw .invalid("short TEST file") }
        return TestSolidDecoder(color: (b[4], b[5], b[6]), width: Int(b[7]), height: Int(b[8]))
    }
}

private final class TestSolidDecoder: AnimationDecoder {
    let info: AnimationInfo
    let color: (UInt8, UInt8, UInt8)
    init(color: (UInt8, UInt8, UInt8), width: Int, height: Int) {
        self.color = color
        info = AnimationInfo(format: ImageFormat("test"), width: width, height: height,
                             frames: [FrameInfo(rect: FrameRect(x: 0, y: 0, width: width, height: height), delayMs: 0,
                                                dispose: .none, blend: .source, hasAlpha: false)], plays: 1)
    }
    func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        for i in 0..<(canvas.width * canvas.height) {
            canvas.pixels[4 * i] = color.0; canvas.pixels[4 * i + 1] = color.1
            canvas.pixels[4 * i + 2] = color.2; canvas.pixels[4 * i + 3] = 255
        }
    }
}

@Suite struct CoderRegistryTests {
    static let gif: [UInt8] = {
        var w = GIFTestWriter(width: 2, height: 2, palette: [0x000000, 0xFF0000])
        w.image(width: 2, height: 2, pixels: [1, 1, 1, 1], codeSize: 2)
        return w.bytes + [0x3B]
    }()

    /// Three coders, so that the lists below do not change when a built-in is added.
    static func three() -> CoderRegistry { CoderRegistry([GIFCoder(), PNGCoder(), WebPCoder()]) }

    @Test func builtInsInOrder() {
        #expect(CoderRegistry().names == ["GIF", "PNG", "WebP", "JPEG", "AVIF"])
        let registry = Self.three()
        #expect(registry.names == ["GIF", "PNG", "WebP"])
        #expect(registry.coder(for: Self.gif)?.name == "GIF")
        #expect(registry.coder(for: Array("TEST".utf8)) == nil)
        #expect(registry.formatList == "GIF, PNG or WebP")
        #expect(CoderRegistry.shared.names.starts(with: ["GIF", "PNG", "WebP"]))
    }

    @Test func addedCoderOpensThroughTheLoader() throws {
        let registry = Self.three()
        let options = DecodeOptions(coders: registry)
        let file: [UInt8] = Array("TEST".utf8) + [10, 20, 30, 3, 2]
        let before = #expect(throws: AnimatedError.self) { try AnimationLoader.open(ByteSource(bytes: file), options: options) }
        #expect(before?.kind == .unsupportedFormat && before?.message == "not a GIF, PNG or WebP file")
        registry.add(TestSolidCoder(), first: false)
        #expect(registry.names == ["GIF", "PNG", "WebP", "TEST"])
        let decoder = try AnimationLoader.open(ByteSource(bytes: file), options: options)
        #expect(decoder.info.format.rawValue == "test" && decoder.info.width == 3 && decoder.info.height == 2)
        let frame = try Compositor(decoder: decoder).frame(at: 0)
        #expect(Array(frame.pixels[0..<4]) == [10, 20, 30, 255])
        // Not in the shared registry: the default options still refuse it.
        #expect(throws: AnimatedError.self) { try AnimationLoader.open(ByteSource(bytes: file)) }
    }

    @Test func priorityDecidesAndRemoveUndoes() throws {
        let registry = Self.three()
        let options = DecodeOptions(coders: registry)
        registry.add(TestSolidCoder(claimsGIF: true), first: false)
        // Last: the GIF coder is asked first and takes the GIF.
        #expect(try AnimationLoader.open(ByteSource(bytes: Self.gif), options: options).info.format == .gif)
        #expect(registry.remove(named: "TEST") && !registry.remove(named: "TEST"))
        registry.add(TestSolidCoder(claimsGIF: true))
        #expect(registry.names.first == "TEST")
        // First: it takes the GIF's bytes (and fails on them: they are not a TEST file).
        let e = #expect(throws: AnimatedError.self) { try AnimationLoader.open(ByteSource(bytes: Self.gif), options: options) }
        #expect(e?.message == "short TEST file")
        #expect(registry.remove(named: "GIF") && registry.names == ["TEST", "PNG", "WebP"])
    }

    @Test func foldersListWhatTheRegistryReads() throws {
        var template = Array("/tmp/animplay-coders-XXXXXX".utf8CString)
        let dir = String(cString: mkdtemp(&template)!)
        let files = ["a1.test": Array("TEST".utf8) + [1, 2, 3, 4, 4], "a2.gif": Self.gif, "notes.txt": Array("hello".utf8)]
        for (name, bytes) in files {
            let fd = open(dir + "/" + name, O_WRONLY | O_CREAT, 0o644)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        defer { for name in files.keys { unlink(dir + "/" + name) }; rmdir(dir) }
        let registry = Self.three()
        #expect(try ImageFolder.list(dir, coders: registry).files.count == 1)
        registry.add(TestSolidCoder())
        let listing = try ImageFolder.list(dir, coders: registry)
        #expect(listing.files.map { String($0.split(separator: "/").last!) } == ["a1.test", "a2.gif"] && listing.skipped == 1)
        let sequence = try FrameSequenceDecoder(folder: dir, options: DecodeOptions(coders: registry))
        #expect(sequence.info.frameCount == 2 && sequence.info.width == 4 && sequence.info.height == 4)
        #expect(sequence.info.warnings.contains("skipped 1 file that is not a TEST, GIF, PNG or WebP image"))
    }
}
