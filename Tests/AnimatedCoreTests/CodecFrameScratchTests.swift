import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct CodecFrameScratchTests {
    /// A decode that fills its rows with `value` and counts its calls.
    final class FakeFrame {
        var decodes = 0
        var fail = false
        let rect: FrameRect
        let value: UInt8
        init(_ rect: FrameRect, value: UInt8) { self.rect = rect; self.value = value }
        func decode(into: UnsafeMutablePointer<UInt8>, stride: Int) throws(AnimatedError) {
            decodes += 1
            if fail { throw .invalid("broken") }
            for y in 0..<rect.height { (into + y * stride).update(repeating: value, count: rect.width * 4) }
        }
    }

    static func pixel(_ c: Canvas, _ x: Int, _ y: Int) -> UInt8 { c.pixels[(y * c.width + x) * 4] }

    @Test func directFramesDecodeIntoTheCanvasRows() throws {
        let canvas = Canvas(width: 5, height: 4)
        let f = FakeFrame(FrameRect(x: 1, y: 1, width: 3, height: 2), value: 9)
        let scratch = FrameScratch()
        var blends = 0
        try scratch.draw(0, rect: f.rect, onto: canvas, direct: true,
                         decode: f.decode, blend: { _ in blends += 1 })
        #expect(f.decodes == 1 && blends == 0 && scratch.frame == -1)
        #expect(Self.pixel(canvas, 1, 1) == 9 && Self.pixel(canvas, 3, 2) == 9)
        #expect(Self.pixel(canvas, 0, 1) == 0 && Self.pixel(canvas, 4, 2) == 0 && Self.pixel(canvas, 1, 3) == 0)
    }

    @Test func otherFramesGoThroughTheBufferAndTheGivenBlend() throws {
        let canvas = Canvas(width: 5, height: 4)
        let f = FakeFrame(FrameRect(x: 1, y: 1, width: 3, height: 2), value: 7)
        let scratch = FrameScratch()
        var seen: [UInt8] = []
        let blend: (UnsafePointer<UInt8>) -> Void = { seen = Array(UnsafeBufferPointer(start: $0, count: 3 * 2 * 4)) }
        try scratch.draw(4, rect: f.rect, onto: canvas, direct: false, decode: f.decode, blend: blend)
        #expect(seen == [UInt8](repeating: 7, count: 24), "rows packed, width * 4 apart")
        #expect(Self.pixel(canvas, 1, 1) == 0, "only the blend touches the canvas")
        // The same frame again, even where it could go direct: blended from the buffer, not decoded.
        seen = []
        try scratch.draw(4, rect: f.rect, onto: canvas, direct: true, decode: f.decode, blend: blend)
        #expect(f.decodes == 1 && seen.count == 24 && scratch.frame == 4)
    }

    @Test func aFailedDecodeLeavesNothingCached() {
        let f = FakeFrame(FrameRect(x: 0, y: 0, width: 2, height: 2), value: 1)
        let scratch = FrameScratch()
        f.fail = true
        #expect(throws: AnimatedError.invalid("broken")) { try scratch.load(3, rect: f.rect, decode: f.decode) }
        #expect(scratch.frame == -1)
        f.fail = false
        #expect(throws: Never.self) { try scratch.load(3, rect: f.rect, decode: f.decode) }
        #expect(f.decodes == 2 && scratch.frame == 3)
    }
}
