import Foundation
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Helpers for the sprite tests: fixture paths, canvases built pixel by pixel, crops.
enum SpriteFixtures {
    static let root = Corpus.fixtures + "/sprites"

    /// A canvas whose pixel (x, y) is `pixel(x, y)`.
    static func canvas(_ w: Int, _ h: Int, _ pixel: (Int, Int) -> [UInt8]) -> Canvas {
        let c = Canvas(width: w, height: h)
        for y in 0..<h { for x in 0..<w {
            let p = pixel(x, y)
            for k in 0..<4 { c.pixels[(y * w + x) * 4 + k] = p[k] }
        } }
        return c
    }

    /// The pixels of `rect` of `canvas`, row by row (cut by hand, independently of Blend).
    static func crop(_ canvas: Canvas, _ rect: FrameRect) -> [UInt8] {
        var out: [UInt8] = []
        for y in rect.y..<(rect.y + rect.height) { for x in rect.x..<(rect.x + rect.width) {
            for k in 0..<4 { out.append(canvas.pixels[(y * canvas.width + x) * 4 + k]) }
        } }
        return out
    }

    /// Distinct RGBA for every (k, x, y), with translucent and clear pixels (as make-fixtures.py).
    static func pattern(_ k: Int, _ x: Int, _ y: Int) -> [UInt8] {
        let a = (x + y + k) % 4 != 0 ? 255 : ((x * y) % 2 != 0 ? 0 : 128)
        return [UInt8((20 * k + 3 * x + 1) % 256), UInt8((40 + 7 * y + 5 * k) % 256),
                UInt8((x * 13 + y * 29 + k * 11) % 256), UInt8(a)]
    }

    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func file(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
    }
}

/// Composites every frame forward, then backward on a fresh compositor; both must agree.
func spriteFramesForwardAndBackward(_ make: () throws -> any AnimationDecoder) throws -> [[UInt8]] {
    let forward = try Compositor(decoder: make())
    let n = forward.info.frameCount
    let frames = (0..<n).map { forward.frame(at: $0).snapshot() }
    let backward = try Compositor(decoder: make())
    for i in stride(from: n - 1, through: 0, by: -1) where backward.frame(at: i).snapshot() != frames[i] {
        throw AnimatedError.invalid("frame \(i) differs in reverse order")
    }
    return frames
}
