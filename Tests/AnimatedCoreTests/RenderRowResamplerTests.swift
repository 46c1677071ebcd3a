import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal

/// The fused loop behind bilinear enlargement and mild area reductions (`RowResampler`): the
/// same picture as the general loops (`Enlarger.filterRows`, `AreaAverageScaler.areaAverage`)
/// and the exact references, opaque and translucent rows, edge sizes.
@Suite struct RenderRowResamplerTests {
    /// A seeded canvas: random colours; alpha 255 on rows where `opaqueRow` holds, else random
    /// (with some fully transparent pixels).
    func randomCanvas(_ w: Int, _ h: Int, seed: String, opaqueRow: (Int) -> Bool = { _ in false }) -> Canvas {
        var rng = TestRandom(seed)
        let c = Canvas(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let o = (y * w + x) * 4
                for k in 0..<3 { c.pixels[o + k] = UInt8.random(in: 0...255, using: &rng) }
                let a = UInt8.random(in: 0...255, using: &rng)
                c.pixels[o + 3] = opaqueRow(y) ? 255 : (a < 40 ? 0 : a)
            }
        }
        return c
    }

    /// Largest difference of any byte, and how many bytes differ.
    func difference(_ a: [UInt8], _ b: [UInt8]) -> (worst: Int, count: Int) {
        var worst = 0, count = 0
        for i in 0..<min(a.count, b.count) where a[i] != b[i] {
            worst = max(worst, abs(Int(a[i]) - Int(b[i]))); count += 1
        }
        return (worst, count)
    }

    func general(_ c: Canvas, _ w: Int, _ h: Int) -> [UInt8] {
        let xk = KernelWeights(source: c.width, target: w, filter: .bilinear)
        let yk = KernelWeights(source: c.height, target: h, filter: .bilinear)
        return [UInt8](unsafeUninitializedCapacity: w * h * 4) { buf, n in
            Enlarger.filterRows(c, xk: xk, yk: yk, width: w, height: h, into: buf.baseAddress!)
            n = w * h * 4
        }
    }

    @Test func everyCodeValueSurvivesTheScaledTablesAndTheRoundingToNearest() {
        // An opaque 1×2 column of one code value enlarged to 1×3 through the fused loop: the
        // value must come back exactly, for every code value.
        for v in 0..<256 {
            let c = makeCanvas(1, 2, [UInt8(v), UInt8(255 - v), UInt8(v / 2), 255, UInt8(v), UInt8(255 - v), UInt8(v / 2), 255])
            let out = Enlarger().enlarge(c, width: 1, height: 3)
            #expect(out == [UInt8]((0..<3).flatMap { _ in [UInt8(v), UInt8(255 - v), UInt8(v / 2), 255] }), "code value \(v)")
        }
        // Past 1 (rounding of the weights) the padded table reads white, whatever the mask keeps.
        let t = SRGBTables.shared
        #expect(t.toSRGB[SRGBTables.encodeSteps + 1] == 255 && t.toSRGB[Int(SRGBTables.paddedMask)] == 255)
        #expect(RowResampler.TableIndex()(SIMD4(repeating: Float(SRGBTables.encodeSteps) * 1.01))[0] <= SRGBTables.paddedMask)
    }

    @Test func theEncodeTableHoldsEachStepsNearestCodeValue() {
        // The table is filled by stretches; every entry must be what the transfer function gives.
        let t = SRGBTables.shared, n = SRGBTables.encodeSteps
        var wrong: [Int] = []
        for i in 0...n {
            let s = SRGBTables.encode(Double(i) / Double(n)) * 255
            if t.toSRGB[i] != UInt8(min(255, max(0, s.rounded()))) { wrong.append(i) }
        }
        #expect(wrong.isEmpty, "entries \(wrong.prefix(8))")
        #expect(t.toSRGB[0] == 0 && t.toSRGB[n] == 255)
    }

    @Test(arguments: [(37, 23, 41, 25), (100, 100, 101, 101), (100, 50, 99, 51), (64, 36, 120, 67), (5, 3, 13, 7), (2, 2, 3, 3)])
    func bilinearMatchesTheGeneralLoop(cw: Int, ch: Int, w: Int, h: Int) {
        // Opaque canvases: the same sums; only the rounding to the table differs (ties).
        let opaque = randomCanvas(cw, ch, seed: "rowResampler.opaque.\(cw)x\(ch)", opaqueRow: { _ in true })
        let o = difference(Enlarger().enlarge(opaque, width: w, height: h), general(opaque, w, h))
        #expect(o.worst <= 1 && o.count * 10_000 <= w * h * 4, "opaque \(cw)x\(ch)→\(w)x\(h): \(o)")
        // Translucent ones go through the division as the general loop does.
        let mixed = randomCanvas(cw, ch, seed: "rowResampler.mixed.\(cw)x\(ch)", opaqueRow: { $0 % 3 == 0 })
        let m = difference(Enlarger().enlarge(mixed, width: w, height: h), general(mixed, w, h))
        #expect(m.worst <= 1 && m.count * 1000 <= w * h * 4, "translucent \(cw)x\(ch)→\(w)x\(h): \(m)")
    }

    @Test func opaqueRowsAreWrittenAsTheyAreWhateverTheOtherRowsAre() {
        // Two canvases that differ only in row 9 (translucent in one): output rows that do not
        // reach row 9 must be identical, byte for byte, and those that do must differ.
        let (cw, ch, w, h) = (31, 12, 45, 17)
        let opaque = randomCanvas(cw, ch, seed: "rowResampler.rows", opaqueRow: { _ in true })
        let holed = Canvas(width: cw, height: ch)
        for i in 0..<opaque.pixels.count { holed.pixels[i] = opaque.pixels[i] }
        for x in 0..<cw { holed.pixels[(9 * cw + x) * 4 + 3] = UInt8(x * 8) }
        let a = Enlarger().enlarge(opaque, width: w, height: h), b = Enlarger().enlarge(holed, width: w, height: h)
        let yk = KernelWeights(source: ch, target: h, filter: .bilinear)
        for oy in 0..<h {
            let row = (oy * w * 4)..<((oy + 1) * w * 4)
            let reaches = (0..<yk.taps).contains { yk.index[oy * yk.taps + $0] == 9 && yk.weight[oy * yk.taps + $0] > 0 }
            if reaches {
                #expect(Array(a[row]) != Array(b[row]), "row \(oy)")
            } else {
                #expect(Array(a[row]) == Array(b[row]), "row \(oy)")
                #expect(stride(from: 3, to: w * 4, by: 4).allSatisfy { a[row.lowerBound + $0] == 255 })
            }
        }
    }

    @Test(arguments: [(37, 23, 36, 22), (64, 36, 60, 34), (33, 31, 31, 33), (3, 2, 2, 1), (2, 1, 1, 1), (100, 7, 99, 7), (7, 100, 7, 51)])
    func mildReductionsMatchTheExactReferenceAndTheGeneralLoop(cw: Int, ch: Int, w: Int, h: Int) {
        for opaqueRow in [{ (_: Int) in true }, { (y: Int) in y % 4 == 1 }] {
            let c = randomCanvas(cw, ch, seed: "rowResampler.area.\(cw)x\(ch)", opaqueRow: opaqueRow)
            #expect(KernelWeights(area: cw, target: w, maxTaps: AreaAverageScaler.mildTaps) != nil)
            let fast = AreaAverageScaler().scale(c, index: 0, to: RenderSize(width: w, height: h)).pixels
            let ref = referenceAreaAverage(c, w, h)
            var worst = 0.0
            for i in 0..<(w * h) where ref[i * 4 + 3] >= 0.5 {
                for k in 0..<4 { worst = max(worst, abs(Double(fast[i * 4 + k]) - ref[i * 4 + k])) }
            }
            #expect(worst <= 1.0, "\(cw)x\(ch)→\(w)x\(h): off by \(worst)")
            let d = difference(fast, AreaAverageScaler.areaAverage(c, width: w, height: h))
            #expect(d.worst <= 1, "\(cw)x\(ch)→\(w)x\(h): \(d)")
        }
    }

    @Test func largerReductionsKeepTheGeneralLoop() {
        // 1280 in 1200: an output pixel's 16/15 of a source pixel never straddles 3 of them.
        #expect(KernelWeights(area: 1280, target: 1200, maxTaps: AreaAverageScaler.mildTaps)?.taps == 2)
        #expect(KernelWeights(area: 200, target: 100, maxTaps: AreaAverageScaler.mildTaps)?.taps == 2)
        #expect(KernelWeights(area: 201, target: 100, maxTaps: AreaAverageScaler.mildTaps)?.taps == 3)
        #expect(KernelWeights(area: 301, target: 100, maxTaps: AreaAverageScaler.mildTaps) == nil)
        let c = randomCanvas(60, 40, seed: "rowResampler.large")
        #expect(AreaAverageScaler().scale(c, index: 0, to: RenderSize(width: 13, height: 9)).pixels
                == AreaAverageScaler.areaAverage(c, width: 13, height: 9))
    }

    @Test func paddedAreaTapsHaveTheCoverageWeights() {
        for (n, m) in [(1280, 1200), (37, 36), (3, 2), (5, 5), (2, 1)] {
            let a = AxisWeights(source: n, target: m)
            guard let k = KernelWeights(area: n, target: m, maxTaps: 3) else { Issue.record("\(n)→\(m)"); continue }
            for i in 0..<m {
                let c = Int(a.count[i])
                for j in 0..<k.taps {
                    let idx = Int(k.index[i * k.taps + j]), wt = k.weight[i * k.taps + j]
                    #expect(idx == Int(a.start[i]) + min(j, c - 1))
                    #expect(wt == (j < c ? a.weights[Int(a.offset[i]) + j] : 0))
                }
            }
        }
    }

    @Test func onePixelImagesAndTransparentCanvases() {
        // 1×1 to any size: the pixel everywhere (the fused loop, not the replication).
        let one = makeCanvas(1, 1, [200, 100, 50, 255])
        #expect(Enlarger().enlarge(one, width: 7, height: 3) == [UInt8]((0..<21).flatMap { _ in [200, 100, 50, 255] as [UInt8] }))
        let translucent = makeCanvas(1, 1, [200, 100, 50, 77])
        #expect(Enlarger().enlarge(translucent, width: 2, height: 5) == [UInt8]((0..<10).flatMap { _ in [200, 100, 50, 77] as [UInt8] }))
        // A 1-pixel-wide column reduced mildly.
        let column = makeCanvas(1, 3, [0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255])
        let reduced = AreaAverageScaler().scale(column, index: 0, to: RenderSize(width: 1, height: 2)).pixels
        #expect(difference(reduced, AreaAverageScaler.areaAverage(column, width: 1, height: 2)).worst == 0)
        // Nothing but transparency stays transparent black.
        let clear = Canvas(width: 9, height: 5)
        #expect(Enlarger().enlarge(clear, width: 14, height: 8).allSatisfy { $0 == 0 })
        #expect(AreaAverageScaler().scale(clear, index: 0, to: RenderSize(width: 8, height: 4)).pixels.allSatisfy { $0 == 0 })
    }

    @Test(arguments: [(640 / 8, 360 / 8, 150, 84), (160, 90, 150, 84), (37, 23, 74, 46), (37, 23, 10, 7), (9, 5, 20, 11)])
    func scalingToRGBIsScalingThenFlattening(cw: Int, ch: Int, w: Int, h: Int) {
        // Enlargement, mild reduction, whole factor, large reduction, and a Mitchell enlarger
        // (the last three flattened after the scaling): the same bytes as scaling to RGBA and
        // flattening the whole frame, on a pattern background (its phase depends on the row).
        for opaqueRow in [{ (_: Int) in true }, { (y: Int) in y % 5 != 2 }] {
            let c = randomCanvas(cw, ch, seed: "rowResampler.rgb.\(cw)x\(ch)", opaqueRow: opaqueRow)
            for scaler in [AreaAverageScaler(), AreaAverageScaler(enlarger: Enlarger(filter: .mitchell))] {
                var rgba = [UInt8](repeating: 0, count: w * h * 4), fused = [UInt8](repeating: 7, count: w * h * 4)
                rgba.withUnsafeMutableBufferPointer { b in
                    scaler.scale(c, width: w, height: h, into: b.baseAddress!)
                    OpaqueFrame.flatten(b.baseAddress!, width: w, height: h, background: .checker, terminalColor: nil, into: b.baseAddress!)
                }
                fused.withUnsafeMutableBufferPointer { b in
                    scaler.scale(c, width: w, height: h, intoRGB: b.baseAddress!) { rgba, y, rgb in
                        OpaqueFrame.flatten(rgba, width: w, height: 1, firstRow: y, background: .checker, terminalColor: nil, into: rgb)
                    }
                }
                #expect(rgba[0..<(w * h * 3)] == fused[0..<(w * h * 3)], "\(cw)x\(ch)→\(w)x\(h)")
                // The lower half of the rows on a second thread: the same bytes.
                var halves = [UInt8](repeating: 9, count: w * h * 4)
                halves.withUnsafeMutableBufferPointer { b in
                    scaler.scale(c, width: w, height: h, intoRGB: b.baseAddress!, halves: true) { rgba, y, rgb in
                        OpaqueFrame.flatten(rgba, width: w, height: 1, firstRow: y, background: .checker, terminalColor: nil, into: rgb)
                    }
                }
                #expect(rgba[0..<(w * h * 3)] == halves[0..<(w * h * 3)], "halves \(cw)x\(ch)→\(w)x\(h)")
            }
        }
    }
}
