import AnimatedCore

/// Builds a sixel palette for a frame with more colours than registers: median cut on a
/// 15-bit colour histogram, always splitting the box with the largest squared error (pixel
/// count × spread), until every register is used or no box can be split.
///
/// Weighting by area is what keeps a flat colour that covers a visible part of the picture (a
/// grey moon, a sky) from being averaged into its neighbours: such a box holds many pixels, so
/// any spread in it costs a lot of error and it is split before boxes of rare colours are. Each
/// entry is the mean of the exact colours in its box (sums kept per bin), so a colour that
/// fills its box comes out exact. libsixel's median cut (the previous builder) stops at far
/// fewer entries than registers on smooth pictures (87 of 256 for an enlarged orbit.webp frame)
/// and drops such colours. Colours covering at least 1/200 of the frame are given entries of
/// their own before the cut (up to half the registers), so even 16 registers keep them.
///
/// One builder per thread. Its histogram (1 MB) lives only while a palette is built, on
/// zeroed pages of its own (`ScratchPages`: only the bins' pages touched are resident):
/// palettes are built for a few frames of an animation (3 of the 300 of the large benchmark
/// video), and a histogram kept from frame to frame was 0.9 MB of the process's peak memory.
///
/// A bin is one record of four words (sums of r, g, b, then the count), and a pixel adds to
/// the sums before it reads the count: the first touch of each fresh page is then a write (one
/// page fault). The count used to sit in an array of its own, read first: a read maps the
/// kernel's shared zero page and the write after it replaces that mapping (a second fault, and
/// a TLB flush across the process's threads), about 12 µs each on this VM, 64 of them a first
/// frame at 1200×675: the first sixel frame's histogram 4.0 → 2.8 ms (medians of 20 plays).
final class SixelPaletteBuilder {
    private static let bins = 1 << 15
    private static let histogramBytes = bins * 4 * 8
    /// The histogram while `palette` runs (nil between palettes): a record of four words per
    /// bin, the r, g and b sums and the count.
    private var records: UnsafeMutablePointer<UInt64>!
    private var occupied: [Int32] = []

    init() {}

    /// A palette (RGB triples) of at most `registers` entries for `pixels` RGB triples. With a
    /// `helper` (another builder), the histogram of the second half of the pixels is counted by
    /// it on a thread of its own meanwhile, then added in: the same palette (see `add`). With
    /// `alongsideCut`, that runs on a thread of its own while the histogram is cut into the
    /// palette (one core's work, about 2 ms at 1200×675). With `unmappingLater`, the
    /// histograms' pages are left for it to unmap.
    func palette(rgb: UnsafePointer<UInt8>, pixels n: Int, registers: Int, helper: SixelPaletteBuilder? = nil,
                 alongsideCut: (@Sendable () -> Void)? = nil, unmappingLater later: ScratchPages.Later? = nil) -> [UInt8] {
        let bytes = Self.histogramBytes
        return ScratchPages.with(bytes: helper == nil ? bytes : 2 * bytes, unmappingLater: later) { raw in
            attach(raw)
            helper?.attach(raw + bytes)
            defer { detach(); helper?.detach() }
            count(rgb: rgb, pixels: n, helper: helper)
            guard let alongsideCut else { return cut(pixels: n, registers: registers) }
            var palette: [UInt8] = []
            SideThread.run(alongsideCut, alongside: { palette = cut(pixels: n, registers: registers) })
            return palette
        }
    }

    private func attach(_ raw: UnsafeMutableRawPointer) {
        records = raw.bindMemory(to: UInt64.self, capacity: Self.bins * 4)
    }

    private func detach() { records = nil; occupied = [] }

    /// The histogram of `pixels` RGB triples (the second half counted by `helper` if given).
    private func count(rgb: UnsafePointer<UInt8>, pixels n: Int, helper: SixelPaletteBuilder?) {
        occupied.removeAll(keepingCapacity: true)
        if let helper, n >= 2 {
            let split = n / 2
            let second = SecondHalf(builder: helper, rgb: rgb + split * 3)
            helper.occupied.removeAll(keepingCapacity: true)
            SideThread.run({ second.builder.tally(rgb: second.rgb, pixels: n - split) },
                           alongside: { tally(rgb: rgb, pixels: split) })
            add(helper)
        } else {
            tally(rgb: rgb, pixels: n)
        }
    }

    /// The palette of the histogram of `n` pixels.
    private func cut(pixels n: Int, registers: Int) -> [UInt8] {
        let records: UnsafeMutablePointer<UInt64> = records
        // Bins as points: mean colour and weight.
        let m = occupied.count
        var colour = [SIMD3<Float>](repeating: .zero, count: m)
        var weight = [Float](repeating: 0, count: m)
        var order = [Int32](0..<Int32(m))
        for i in 0..<m {
            let p = records + Int(occupied[i]) * 4, c = Float(p[3])
            colour[i] = SIMD3(Float(p[0]), Float(p[1]), Float(p[2])) / c
            weight[i] = c
        }
        // Colours covering a visible area (at least 1/200 of the frame, a 60×34 patch of a
        // 1200×675 frame) get an entry of their own first, up to half the registers: a median
        // cut over few registers can otherwise still merge a flat area into a spread box.
        let visible = Float(max(1, n / 200))
        var big = (0..<m).filter { weight[$0] >= visible }
        big.sort { weight[$0] > weight[$1] }
        big = Array(big.prefix(max(0, min(registers / 2, registers - 1))))
        var boxes: [Box] = []
        if !big.isEmpty && big.count < m {
            let reserved = Set(big)
            order = big.map { Int32($0) } + (0..<m).filter { !reserved.contains($0) }.map { Int32($0) }
            for i in 0..<big.count { boxes.append(Box(start: i, end: i + 1)) }
        }
        var rest = Box(start: boxes.count, end: m)
        rest.measure(order, colour, weight)
        boxes.append(rest)
        while boxes.count < registers {
            var best = -1, bestError: Float = 0
            for (i, b) in boxes.enumerated() where b.end - b.start > 1 && b.error > bestError {
                best = i; bestError = b.error
            }
            guard best >= 0 else { break }
            let (lo, hi) = boxes[best].split(&order, colour, weight)
            boxes[best] = lo
            boxes.append(hi)
        }
        var out: [UInt8] = []
        out.reserveCapacity(boxes.count * 3)
        for b in boxes {
            var sum = SIMD3<Float>.zero, w: Float = 0
            for i in b.start..<b.end {
                let k = Int(order[i])
                sum += colour[k] * weight[k]; w += weight[k]
            }
            let c = sum / max(w, 1)
            out += [UInt8(min(255, c.x + 0.5)), UInt8(min(255, c.y + 0.5)), UInt8(min(255, c.z + 0.5))]
        }
        for bin in occupied { (records + Int(bin) * 4).update(repeating: 0, count: 4) }
        return out
    }

    /// Adds `pixels` RGB triples to the histogram; bins are listed in `occupied` as first met.
    private func tally(rgb: UnsafePointer<UInt8>, pixels n: Int) {
        let records: UnsafeMutablePointer<UInt64> = records
        var s = rgb
        for _ in 0..<n {
            let r = Int(s[0]), g = Int(s[1]), b = Int(s[2])
            let bin = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
            // The sums first: their adds write (see the type's doc), the count is read after.
            let p = records + bin * 4
            p[0] &+= UInt64(r); p[1] &+= UInt64(g); p[2] &+= UInt64(b)
            let c = p[3] &+ 1
            p[3] = c
            if c == 1 { occupied.append(Int32(bin)) }
            s += 3
        }
    }

    /// Adds the histogram `other` counted (of the pixels after this one's) and clears it: the
    /// counts and sums are integers, and its bins new here are listed after this one's in the
    /// order it met them, which is the order one pass over all the pixels would have met them.
    private func add(_ other: SixelPaletteBuilder) {
        let records: UnsafeMutablePointer<UInt64> = records, theirs: UnsafeMutablePointer<UInt64> = other.records
        for bin32 in other.occupied {
            let p = records + Int(bin32) * 4, q = theirs + Int(bin32) * 4
            if p[3] == 0 { occupied.append(bin32) }
            p[0] &+= q[0]; p[1] &+= q[1]; p[2] &+= q[2]; p[3] &+= q[3]
            q.update(repeating: 0, count: 4)
        }
        other.occupied.removeAll(keepingCapacity: true)
    }

    /// The helper and its pixels for the side thread. @unchecked Sendable: the helper is used
    /// by the side thread alone until `SideThread.run` returns, and the pixels are only read.
    private struct SecondHalf: @unchecked Sendable {
        let builder: SixelPaletteBuilder
        let rgb: UnsafePointer<UInt8>
    }

    /// A run of `order` with its weighted squared error about its mean.
    struct Box {
        var start: Int, end: Int
        var error: Float = 0
        var axis = 0

        mutating func measure(_ order: [Int32], _ colour: [SIMD3<Float>], _ weight: [Float]) {
            var w: Float = 0, s = SIMD3<Float>.zero, q = SIMD3<Float>.zero
            for i in start..<end {
                let k = Int(order[i]), c = colour[k], wk = weight[k]
                w += wk; s += c * wk; q += c * c * wk
            }
            let variance = q - s * s / max(w, 1)      // per channel, times the weight
            error = variance.x + variance.y + variance.z
            axis = variance.x >= variance.y && variance.x >= variance.z ? 0 : variance.y >= variance.z ? 1 : 2
        }

        /// Splits at the weighted median of the widest channel.
        func split(_ order: inout [Int32], _ colour: [SIMD3<Float>], _ weight: [Float]) -> (Box, Box) {
            let a = axis
            Self.stableSort(&order, start..<end) { colour[Int($0)][a] }
            var total: Float = 0
            for i in start..<end { total += weight[Int(order[i])] }
            var run: Float = 0, cut = start + 1
            for i in start..<(end - 1) {
                run += weight[Int(order[i])]
                cut = i + 1
                if run * 2 >= total { break }
            }
            var lo = Box(start: start, end: cut), hi = Box(start: cut, end: end)
            lo.measure(order, colour, weight); hi.measure(order, colour, weight)
            return (lo, hi)
        }

        /// Sorts `order[range]` by `key`, equal keys keeping their order: the one order a
        /// stable sort gives (`sort(by:)` with `<` on the keys, which is what the cut used).
        /// A least-significant-digit radix sort of the keys' bits, a byte a pass (stable by
        /// construction; a pass whose byte is the same for every key is skipped: the bins'
        /// channel means share their top bytes). The closure sort was most of the first
        /// palette's median cut (about 2 ms at 1200×675), a comparison sort of packed keys
        /// still 1 ms. Keys are not NaN.
        static func stableSort(_ order: inout [Int32], _ range: Range<Int>, key: (Int32) -> Float) {
            let n = range.count
            guard n > 1 else { return }
            // Room for the keys and entries, and for the copies a pass scatters them into.
            let keys = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * n)
            let entries = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * n)
            let counts = UnsafeMutablePointer<Int>.allocate(capacity: 256)
            defer { keys.deallocate(); entries.deallocate(); counts.deallocate() }
            order.withUnsafeMutableBufferPointer { all in
                let o = all.baseAddress! + range.lowerBound
                for i in 0..<n {
                    // + 0 makes -0 into 0 (they compare equal); the sign flip orders the bits
                    // of negative floats below those of positive ones, each the right way.
                    let bits = (key(o[i]) + 0).bitPattern
                    keys[i] = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
                    entries[i] = o[i]
                }
                var (fromKeys, fromEntries) = (keys, entries)
                var (toKeys, toEntries) = (keys + n, entries + n)
                for shift: UInt32 in stride(from: 0, to: 32, by: 8) {
                    counts.initialize(repeating: 0, count: 256)
                    for i in 0..<n { counts[Int((fromKeys[i] >> shift) & 0xFF)] &+= 1 }
                    if counts[Int((fromKeys[0] >> shift) & 0xFF)] == n { continue }
                    var at = 0
                    for d in 0..<256 { let c = counts[d]; counts[d] = at; at &+= c }
                    for i in 0..<n {
                        let d = Int((fromKeys[i] >> shift) & 0xFF), to = counts[d]
                        counts[d] = to &+ 1
                        toKeys[to] = fromKeys[i]; toEntries[to] = fromEntries[i]
                    }
                    swap(&fromKeys, &toKeys); swap(&fromEntries, &toEntries)
                }
                o.update(from: fromEntries, count: n)
            }
        }
    }
}
