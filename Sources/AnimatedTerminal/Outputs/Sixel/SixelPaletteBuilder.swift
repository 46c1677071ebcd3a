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
/// Its histogram (0.9 MB) lives only while a palette is built: palettes are built for a few
/// frames of an animation (3 of the 300 of the large benchmark video), and a histogram kept
/// from frame to frame was 0.9 MB of the process's peak memory for nothing.
final class SixelPaletteBuilder {
    private static let bins = 1 << 15

    /// A palette (RGB triples) of at most `registers` entries for `pixels` RGB triples.
    func palette(rgb: UnsafePointer<UInt8>, pixels n: Int, registers: Int) -> [UInt8] {
        // Zeroed pages of their own (`ScratchPages`): only the bins' pages touched are resident.
        ScratchPages.with(bytes: Self.bins * (3 * 8 + 4)) { raw in
            let sums = raw.bindMemory(to: UInt64.self, capacity: Self.bins * 3)      // r, g, b per bin
            let count = (raw + Self.bins * 3 * 8).bindMemory(to: UInt32.self, capacity: Self.bins)
            return palette(rgb: rgb, pixels: n, registers: registers, count: count, sums: sums)
        }
    }

    private func palette(rgb: UnsafePointer<UInt8>, pixels n: Int, registers: Int,
                         count: UnsafeMutablePointer<UInt32>, sums: UnsafeMutablePointer<UInt64>) -> [UInt8] {
        var occupied: [Int32] = []
        var s = rgb
        for _ in 0..<n {
            let r = Int(s[0]), g = Int(s[1]), b = Int(s[2])
            let bin = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
            if count[bin] == 0 { occupied.append(Int32(bin)) }
            count[bin] &+= 1
            let p = sums + bin * 3
            p[0] &+= UInt64(r); p[1] &+= UInt64(g); p[2] &+= UInt64(b)
            s += 3
        }
        // Bins as points: mean colour and weight.
        let m = occupied.count
        var colour = [SIMD3<Float>](repeating: .zero, count: m)
        var weight = [Float](repeating: 0, count: m)
        var order = [Int32](0..<Int32(m))
        for i in 0..<m {
            let bin = Int(occupied[i]), c = Float(count[bin]), p = sums + bin * 3
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
        return out
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
            order[start..<end].sort { colour[Int($0)][a] < colour[Int($1)][a] }
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
    }
}
