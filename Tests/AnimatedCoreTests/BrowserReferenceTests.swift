import Foundation
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Frames composited by Chromium 156 (WebCodecs' ImageDecoder, straight alpha, no colour
/// management: `Benchmarks/chromium-reference.py --write-png`), kept in Tests/Fixtures/browser,
/// for inputs where two formulas part by their roundings: partly transparent layers that pile
/// up, OVER pairs whose exact result lies a hair from a half (Chromium blends APNG in float,
/// `Blend.overPixel`; animated WebP with libwebp's integer formula), and 16-bit samples
/// (Chromium keeps their high byte); and files cut inside a frame's data (Chromium shows the
/// rows that arrived). Ours must equal Chromium's, frame by frame.
@Suite struct BrowserReferenceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let id: String, input: String
        var testDescription: String { id }
    }

    static let cases = [
        Case(id: "apng-stacked-over", input: "browser/apng-stacked-over.png"),   // 11 OVER layers, random alphas
        Case(id: "stacked_alpha", input: "webp/stacked_alpha.webp"),             // 10 blended WebP layers
        Case(id: "apng-over-near-halves", input: "browser/apng-over-near-halves.png"),  // OVER at a half
        Case(id: "apng-16bit-over", input: "browser/apng-16bit-over.png"),       // 16-bit RGBA, 5 OVER layers
        Case(id: "apng-16bit-grey-trns", input: "browser/apng-16bit-grey-trns.png"),  // 16-bit grey, tRNS
        Case(id: "apng-cut-source", input: "browser/apng-cut-source.png"),       // cut in frame 1 (replaces all)
        Case(id: "apng-cut-over", input: "browser/apng-cut-over.png"),           // cut in frame 1 (OVER)
        Case(id: "apng-cut-subrect", input: "browser/apng-cut-subrect.png"),     // cut in frame 1 (a rectangle)
        Case(id: "gif-cut-opaque", input: "browser/gif-cut-opaque.gif"),         // cut in frame 1 (opaque, whole)
    ]

    @Test(arguments: cases)
    func everyFrameEqualsChromiums(_ c: Case) throws {
        let dir = Corpus.fixtures + "/browser/expected/" + c.id
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".png") }.sorted()
        let comp = try Compositor(decoder: try AnimationLoader.open(path: Corpus.fixtures + "/" + c.input))
        #expect(files.count == comp.info.frameCount && files.count >= 2, "\(c.id): \(files.count) expected frames")
        for (i, name) in files.enumerated() where i < comp.info.frameCount {
            let want = try Corpus.expectedFrame(dir + "/" + name)
            let got = comp.frame(at: i).snapshot()
            #expect(Corpus.mismatch(got, want.pixels, width: want.width, tolerance: 0) == nil, "\(c.id) frame \(i)")
        }
    }
}
