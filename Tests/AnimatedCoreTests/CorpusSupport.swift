import Foundation
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// The conformance corpus copied from the shared corpus into Tests/Fixtures/corpus
/// (inputs, expected frames, cases.tsv; sources and licences in its README).
struct CorpusCase: CustomTestStringConvertible, Sendable {
    var id: String
    var input: String
    var format: String
    var check: String
    var frames: Int?
    var width: Int
    var height: Int
    var plays: Int?
    var displayMs: [Double]
    var tolerance: Int

    var testDescription: String { id }
    var inputPath: String { Corpus.root + "/" + input }
    var expectedDir: String { Corpus.root + "/expected/" + id }
}

import Testing

enum Corpus {
    static let fixtures: String = {
        var p = #filePath
        for _ in 0..<2 { p = String(p[..<p.lastIndex(of: "/")!]) }   // Tests/
        return p + "/Fixtures"
    }()
    static let root = fixtures + "/corpus"

    static let cases: [CorpusCase] = {
        guard let text = try? String(contentsOfFile: root + "/cases.tsv", encoding: .utf8) else { return [] }
        var out: [CorpusCase] = []
        for line in text.split(separator: "\n").dropFirst() {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count >= 11 else { continue }
            out.append(CorpusCase(
                id: c[0], input: c[1], format: c[2], check: c[3], frames: Int(c[4]),
                width: Int(c[5]) ?? 0, height: Int(c[6]) ?? 0, plays: Int(c[7]),
                displayMs: c[9].split(separator: ",").compactMap { Double($0) },
                tolerance: Int(c[10]) ?? 0))
        }
        return out
    }()

    static func cases(format: String) -> [CorpusCase] { cases.filter { $0.format == format } }

    /// Decodes an expected-frame PNG (plain RGBA) with our own PNG path.
    static func expectedFrame(_ path: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let dec = try AnimationLoader.open(path: path)
        let comp = try Compositor(decoder: dec)
        let c = comp.frame(at: 0)
        return (c.width, c.height, c.snapshot())
    }

    /// nil when equal under the corpus rule (alpha 0 matches alpha 0 whatever the RGB;
    /// elsewhere every channel within `tolerance`), else the first mismatch.
    static func mismatch(_ got: [UInt8], _ want: [UInt8], width: Int, tolerance: Int) -> String? {
        guard got.count == want.count else { return "size \(got.count) != \(want.count)" }
        var i = 0
        while i < got.count {
            if !(got[i + 3] == 0 && want[i + 3] == 0) {
                for k in 0..<4 where abs(Int(got[i + k]) - Int(want[i + k])) > tolerance {
                    let px = i / 4
                    return "pixel (\(px % width),\(px / width)) got \(Array(got[i..<i+4])) want \(Array(want[i..<i+4]))"
                }
            }
            i += 4
        }
        return nil
    }

    static func expectedFiles(_ c: CorpusCase) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: c.expectedDir)) ?? [])
            .filter { $0.hasSuffix(".png") }.sorted()
    }

    /// Runs one case as check.py would; returns failures (empty = pass).
    static func run(_ c: CorpusCase) -> [String] {
        var failures: [String] = []
        let decoder: any AnimationDecoder
        do {
            decoder = try AnimationLoader.open(path: c.inputPath)
        } catch {
            if c.check == "error" || c.check == "still-or-error" { return [] }
            return ["open failed: \(error)"]
        }
        if c.check == "error" { return ["expected an error, got \(decoder.info.frameCount) frames"] }
        let info = decoder.info
        let expectedCount = c.check == "still-or-error" ? 1 : c.frames
        if let n = expectedCount, info.frameCount != n {
            return ["frame count \(info.frameCount), expected \(n)"]
        }
        if info.width != c.width || info.height != c.height {
            failures.append("canvas \(info.width)x\(info.height), expected \(c.width)x\(c.height)")
        }
        if c.check != "still-or-error" {
            if let p = c.plays, p != info.plays { failures.append("plays \(info.plays), expected \(p)") }
            if !c.displayMs.isEmpty {
                for (i, d) in c.displayMs.enumerated() where i < info.frameCount {
                    if abs(info.displayMs(at: i) - d) > 1 {
                        failures.append("frame \(i) displayMs \(info.displayMs(at: i)), expected \(d)"); break
                    }
                }
            }
        }
        guard let comp = try? Compositor(decoder: decoder) else { return failures + ["no compositor"] }
        // Missing expected frames must not pass as "nothing to compare".
        let files = expectedFiles(c)
        let wanted = c.check == "all-frames" ? info.frameCount : 1
        if files.count != wanted { failures.append("\(files.count) expected frames stored, \(wanted) needed") }
        for name in files {
            let idx = Int(name.dropFirst("frame-".count).dropLast(".png".count))!
            guard idx < info.frameCount else { failures.append("no frame \(idx)"); continue }
            guard let want = try? expectedFrame(c.expectedDir + "/" + name) else {
                failures.append("cannot read expected \(name)"); continue
            }
            let got = comp.frame(at: idx).snapshot()
            if let m = mismatch(got, want.pixels, width: info.width, tolerance: c.tolerance) {
                failures.append("frame \(idx): \(m)")
                break
            }
        }
        return failures
    }

    /// Random access must equal sequential access: composite every frame in order, then drive
    /// ONE compositor through a seeded random order (backward jumps included) and compare each
    /// frame. Cases that must open and do not are failures; `error` cases have nothing to replay.
    static func randomOrderMatchesSequential(_ c: CorpusCase, using rng: inout TestRandom) -> String? {
        if c.check == "error" { return nil }
        let d1: any AnimationDecoder, d2: any AnimationDecoder
        do {
            d1 = try AnimationLoader.open(path: c.inputPath)
            d2 = try AnimationLoader.open(path: c.inputPath)
        } catch {
            return c.check == "still-or-error" ? nil : "open failed: \(error)"
        }
        let forward: Compositor, random: Compositor
        do {
            forward = try Compositor(decoder: d1)
            random = try Compositor(decoder: d2)
        } catch {
            return "no compositor: \(error)"
        }
        let n = d1.info.frameCount
        let expected = (0..<n).map { forward.frame(at: $0).snapshot() }
        return RandomOrder.check(random, expected: expected, steps: min(max(40, 3 * n), 160), using: &rng)
    }
}
