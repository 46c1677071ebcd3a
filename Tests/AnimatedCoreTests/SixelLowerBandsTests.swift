import Testing
@testable import AnimatedTerminal

/// The lower half's bands of a first frame in halves, claimed from both ends by two threads.
struct SixelLowerBandsTests {
    @Test(arguments: [(12, 6), (13, 6), (675, 336), (30, 12), (29, 12)])
    func bothEndsMeetWithEveryBandClaimedOnce(size: (Int, Int)) {
        let (h, top) = size
        let bands = SixelLowerBands(top: top, height: h)
        var fromTop: [Int] = [], fromBottom: [Int] = []
        // Alternating, as two threads might: one from each end until none is left.
        while true {
            guard let a = bands.claimFirst() else { break }
            fromTop.append(a)
            guard let b = bands.claimLast() else { break }
            fromBottom.append(b)
        }
        let all = (fromTop + fromBottom).sorted()
        #expect(all == Array(0..<((h - top + 5) / 6)), "\(h) rows from \(top)")
        #expect(fromTop == fromTop.sorted() && fromBottom == fromBottom.sorted(by: >))
        // The rows of the bands tile the lower half: six rows each, the last one shorter.
        let rows = all.map { bands.rows($0) }
        #expect(rows.first?.lowerBound == top && rows.last?.upperBound == h)
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(rows.dropLast().allSatisfy { $0.count == 6 } && (1...6).contains(rows.last!.count))
        #expect(bands.claimFirst() == nil && bands.claimLast() == nil)
    }

    @Test func theUpperThreadWaitsOnlyForALowerThreadThatHasStarted() {
        let bands = SixelLowerBands(top: 6, height: 30)
        // Not started (no thread could be made: the lower half runs after the upper one).
        #expect(!bands.waitForMappingIfStarted())
        bands.start()
        bands.mapped()
        #expect(bands.waitForMappingIfStarted())
        #expect(bands.claimLast() == 3)
    }

    /// A lower half much harder than the upper (a colour a pixel against one flat colour), so
    /// the upper thread mostly takes some of its bands: the same bytes as one pass, every time.
    @Test(arguments: [120, 127, 300])
    func aHardLowerHalfInHalvesIsTheOnePassImage(height h: Int) {
        let w = 200
        var state: UInt32 = 777
        var idx = [UInt8](repeating: 3, count: w * h)
        for i in (h / 2 * w)..<(w * h) {
            state = state &* 1_103_515_245 &+ 12345
            idx[i] = UInt8(truncatingIfNeeded: state >> 16)
        }
        let palette = (0..<768).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let writer = SixelBandWriter(), helper = SixelBandWriter()
        let plain = idx.withUnsafeBufferPointer { writer.write(indices: $0.baseAddress!, width: w, height: h, palette: palette) }
        for round in 0..<5 {
            var plane = idx
            let halves = plane.withUnsafeMutableBufferPointer {
                Array(writer.writeInPlace(indices: $0.baseAddress!, width: w, height: h, palette: palette, helper: helper,
                                          fillUpper: { _ in }, fillLower: { _ in }))
            }
            // Compared whole, reported short (the images are tens of kilobytes).
            let same = halves == plain
            #expect(same, "\(w)×\(h), round \(round): \(halves.count) bytes against \(plain.count)")
        }
    }
}
