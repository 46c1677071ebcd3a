#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// Maps 24-bit colours to the nearest entry of a palette (squared distance in sRGB, the measure
/// the PSNR of the result is taken in) and measures the error while doing so.
///
/// Two lookups, both tables that live as long as the palette:
/// - exact palettes (the frame's own ≤ 256 colours): a direct-mapped cache keyed by the exact
///   colour; a GIF frame repeats the same few colours, so almost every pixel is a hit;
/// - built palettes (smooth pictures, tens of thousands of colours): a table of 2^18 entries
///   indexed by the colour's top 6 bits per channel, filled on first use with the entry nearest
///   that colour. Enlarged frames have too many distinct colours for a cache keyed by the exact
///   colour; a colour within 3 levels of one seen before gets the same entry (at most ±3 per
///   channel more error than the exact search, measured: < 0.1 dB).
///   A miss searches only the entries that can be nearest to some colour of its cell of 16
///   levels a channel (`Candidates`, built on the cell's first miss): the first frame of an
///   enlarged video misses tens of thousands of times, and searching all 256 entries each time
///   was most of that frame's mapping. The entry found is the same (nearest, lowest index on a
///   tie).
/// Each kind's tables are made on the first palette of that kind: an animation whose palettes
/// are all built never pays for the exact cache (0.3 MB), one of exact palettes never for the
/// table and the candidates (up to 1.5 MB).
/// One map per thread (it owns mutable table memory).
final class SixelPaletteMap {
    private(set) var palette: [UInt8] = []
    private(set) var count = 0
    private(set) var exact = true
    private var cacheKeys: UnsafeMutablePointer<UInt32>?
    private var cacheValues: UnsafeMutablePointer<UInt8>?
    private static let cacheBits = 16
    private static let cacheSize = 1 << cacheBits
    private var table: UnsafeMutablePointer<UInt16>?
    private static let tableSize = 1 << 18
    private static let unfilled = UInt16.max
    /// The palette's channels apart, 256 entries (unused ones far away), for the SIMD search.
    private let channels: UnsafeMutablePointer<SIMD8<Int32>>
    private var candidates: Candidates?
    /// `clearTableAhead` ran since the table was last used.
    private var cleared = false
    /// Pixels `mapIndicesDeferring` left for `resolveDeferred`: (position, colour as 0xRRGGBB).
    private var pending = UnsafeMutablePointer<SIMD2<UInt32>>.allocate(capacity: 1)
    private var pendingCount = 0, pendingCapacity = 1

    init() {
        channels = .allocate(capacity: 3 * 32)
        channels.initialize(repeating: SIMD8(repeating: 1 << 12), count: 3 * 32)
    }

    deinit {
        cacheKeys?.deallocate(); cacheValues?.deallocate(); table?.deallocate(); channels.deallocate()
        pending.deallocate()
    }

    /// Uses `palette` (count × RGB, 1 to 256 entries) from now on. `exact`: the palette holds
    /// every colour of the frames mapped to it (exact lookups), else it was built by reduction.
    func setPalette(_ palette: [UInt8], exact: Bool = true) {
        precondition(palette.count % 3 == 0 && (3...768).contains(palette.count))
        self.palette = palette
        self.exact = exact
        count = palette.count / 3
        // Entries past `count` sit at 4096 on every channel: never nearest.
        let lanes = UnsafeMutableRawPointer(channels).assumingMemoryBound(to: Int32.self)
        for i in 0..<256 {
            for c in 0..<3 { lanes[(c * 32 + i / 8) * 8 + i % 8] = i < count ? Int32(palette[i * 3 + c]) : 1 << 12 }
        }
        if exact {
            if let cacheKeys {
                cacheKeys.update(repeating: UInt32.max, count: Self.cacheSize)
            } else {
                let keys = UnsafeMutablePointer<UInt32>.allocate(capacity: Self.cacheSize)
                keys.initialize(repeating: UInt32.max, count: Self.cacheSize)
                let values = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.cacheSize)
                values.initialize(repeating: 0, count: Self.cacheSize)
                cacheKeys = keys; cacheValues = values
            }
        } else if cleared {
            cleared = false
        } else {
            clearTable()
        }
    }

    /// The built palettes' table and candidates, made or emptied.
    private func clearTable() {
        if let table {
            table.update(repeating: Self.unfilled, count: Self.tableSize)
        } else {
            let table = UnsafeMutablePointer<UInt16>.allocate(capacity: Self.tableSize)
            table.initialize(repeating: Self.unfilled, count: Self.tableSize)
            self.table = table
        }
        if let candidates { candidates.reset() } else { candidates = Candidates() }
    }

    /// Makes ready the table the next built palette needs (`setPalette(_:exact: false)` then
    /// skips it): the first frame's encoder does it on another thread while the palette is
    /// cut (0.4 ms for a new map's 0.5 MB table, with nothing else to do on that core).
    func clearTableAhead() {
        clearTable()
        cleared = true
    }

    /// Takes the table entries `other` (a map of the same built palette) found for the slots
    /// this one has none for: as if its lookups had been made here after this one's. Exact
    /// palettes need nothing (their cache holds each colour's own nearest entry).
    func adoptEntries(of other: SixelPaletteMap) {
        guard !exact, !other.exact, let table, let theirs = other.table else { return }
        let unfilled = SIMD8<UInt16>(repeating: Self.unfilled)
        let mine = UnsafeMutableRawPointer(table), given = UnsafeRawPointer(theirs)
        for k in stride(from: 0, to: Self.tableSize * 2, by: 16) {
            let a = mine.loadUnaligned(fromByteOffset: k, as: SIMD8<UInt16>.self)
            let b = given.loadUnaligned(fromByteOffset: k, as: SIMD8<UInt16>.self)
            mine.storeBytes(of: a.replacing(with: b, where: a .== unfilled), toByteOffset: k, as: SIMD8<UInt16>.self)
        }
    }

    /// Writes the palette index of each pixel of `frame` to `indices` (w × h bytes) and returns
    /// the sum of squared channel errors.
    func map(_ frame: OpaqueFrame, into indices: inout [UInt8]) -> UInt64 {
        let n = frame.size.width * frame.size.height
        if indices.count != n { indices = [UInt8](repeating: 0, count: n) }
        return frame.rgb.withUnsafeBufferPointer { src in
            indices.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return 0 }
                return map(rgb: s, pixels: n, into: d)
            }
        }
    }

    /// `pixels` RGB triples at `rgb` to indices at `dst`; the sum of squared channel errors.
    func map(rgb: UnsafePointer<UInt8>, pixels n: Int, into d: UnsafeMutablePointer<UInt8>) -> UInt64 {
        map(rgb: rgb, pixels: n, into: d, measure: true)
    }

    /// As `map`, without measuring the error (rows whose error no decision needs: a third of
    /// the mapping's time went to it).
    func mapIndices(rgb: UnsafePointer<UInt8>, pixels n: Int, into d: UnsafeMutablePointer<UInt8>) {
        _ = map(rgb: rgb, pixels: n, into: d, measure: false)
    }

    /// As `mapIndices`, but a built palette's table gets no new entry: a pixel whose slot is
    /// still empty is left for `resolveDeferred` (as its position, `at` + its offset here, and
    /// its colour), its index not written. Rows mapped so, then resolved, get the indices they
    /// would get mapped after every row `map`ped meanwhile: a slot's entry is the nearest to
    /// the first colour that filled it, so the order of first lookups decides. Exact palettes
    /// (entries of the colour itself, order-free) are mapped at once. False when `limit` pixels
    /// wait already (the caller gives up the frame: `discardDeferred`).
    func mapIndicesDeferring(rgb: UnsafePointer<UInt8>, pixels n: Int, into d: UnsafeMutablePointer<UInt8>,
                             at position: Int, limit: Int) -> Bool {
        guard !exact, let table else { mapIndices(rgb: rgb, pixels: n, into: d); return true }
        var s = rgb
        var lastKey = UInt32.max, lastIndex: UInt8 = 0
        for i in 0..<n {
            let key = UInt32(s[0]) << 16 | UInt32(s[1]) << 8 | UInt32(s[2])
            if key != lastKey {
                let slot = Int(s[0] >> 2) << 12 | Int(s[1] >> 2) << 6 | Int(s[2] >> 2)
                let index = table[slot]
                if index == Self.unfilled {
                    if pendingCount == limit { return false }
                    if pendingCount == pendingCapacity {
                        let bigger = UnsafeMutablePointer<SIMD2<UInt32>>.allocate(capacity: 2 * pendingCapacity)
                        bigger.update(from: pending, count: pendingCount)
                        pending.deallocate()
                        pending = bigger; pendingCapacity *= 2
                    }
                    pending[pendingCount] = SIMD2(UInt32(truncatingIfNeeded: position &+ i), key)
                    pendingCount &+= 1
                    lastKey = UInt32.max
                    s += 3
                    continue
                }
                lastKey = key; lastIndex = UInt8(truncatingIfNeeded: index)
            }
            d[i] = lastIndex
            s += 3
        }
        return true
    }

    /// Writes the indices `mapIndicesDeferring` left into `plane`, in the order they were left
    /// (filling the table's slots as `mapIndices` would have then).
    func resolveDeferred(into plane: UnsafeMutablePointer<UInt8>) {
        defer { pendingCount = 0 }
        guard pendingCount > 0, let table, let candidates else { return }
        palette.withUnsafeBufferPointer { pal in
            guard let p = pal.baseAddress else { return }
            for k in 0..<pendingCount {
                let (position, key) = (Int(pending[k].x), pending[k].y)
                let r = UInt8(key >> 16), g = UInt8((key >> 8) & 0xFF), b = UInt8(key & 0xFF)
                let slot = Int(r >> 2) << 12 | Int(g >> 2) << 6 | Int(b >> 2)
                var index = Int(table[slot])
                if index == Int(Self.unfilled) {
                    index = nearestCandidate(r, g, b, in: p, candidates: candidates)
                    table[slot] = UInt16(index)
                }
                plane[position] = UInt8(truncatingIfNeeded: index)
            }
        }
    }

    /// Forgets the pixels left by `mapIndicesDeferring` (the frame is mapped again whole).
    func discardDeferred() { pendingCount = 0 }

    /// A pixel of the same colour as the one before it takes that one's index and error without
    /// a lookup (enlarged frames repeat each source pixel about twice along a row, and flat
    /// areas far more).
    @inline(__always)
    private func map(rgb: UnsafePointer<UInt8>, pixels n: Int, into d: UnsafeMutablePointer<UInt8>, measure: Bool) -> UInt64 {
        var total: UInt64 = 0
        let count = count
        palette.withUnsafeBufferPointer { pal in
            guard let p = pal.baseAddress else { return }
            var s = rgb
            var lastKey = UInt32.max, lastIndex: UInt8 = 0, lastError: UInt64 = 0
            if exact {
                let keys = cacheKeys!, values = cacheValues!
                for i in 0..<n {
                    let key = UInt32(s[0]) << 16 | UInt32(s[1]) << 8 | UInt32(s[2])
                    if key != lastKey {
                        let slot = Int((key &* 0x9E37_79B1) >> UInt32(32 - Self.cacheBits))
                        let index: Int
                        if keys[slot] == key {
                            index = Int(values[slot])
                        } else {
                            index = Self.nearest(s[0], s[1], s[2], in: p, count: count)
                            keys[slot] = key; values[slot] = UInt8(index)
                        }
                        lastKey = key; lastIndex = UInt8(index)
                        if measure { lastError = Self.error(s, p + index &* 3) }
                    }
                    d[i] = lastIndex
                    total &+= lastError
                    s += 3
                }
            } else {
                let table = table!, candidates = candidates!
                for i in 0..<n {
                    let key = UInt32(s[0]) << 16 | UInt32(s[1]) << 8 | UInt32(s[2])
                    if key != lastKey {
                        let slot = Int(s[0] >> 2) << 12 | Int(s[1] >> 2) << 6 | Int(s[2] >> 2)
                        var index = Int(table[slot])
                        if index == Int(Self.unfilled) {
                            index = nearestCandidate(s[0], s[1], s[2], in: p, candidates: candidates)
                            table[slot] = UInt16(index)
                        }
                        lastKey = key; lastIndex = UInt8(index)
                        if measure { lastError = Self.error(s, p + index &* 3) }
                    }
                    d[i] = lastIndex
                    total &+= lastError
                    s += 3
                }
            }
        }
        return total
    }

    /// Squared distance between the colours at `s` and `q` (RGB).
    @inline(__always)
    private static func error(_ s: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>) -> UInt64 {
        let dr = Int(s[0]) &- Int(q[0]), dg = Int(s[1]) &- Int(q[1]), db = Int(s[2]) &- Int(q[2])
        return UInt64(dr &* dr &+ dg &* dg &+ db &* db)
    }

    /// The nearest entry among the candidates of the colour's cell (lowest index on a tie).
    @inline(__always)
    private func nearestCandidate(_ r: UInt8, _ g: UInt8, _ b: UInt8, in p: UnsafePointer<UInt8>,
                                  candidates: Candidates) -> Int {
        let cell = Int(r >> 4) << 8 | Int(g >> 4) << 4 | Int(b >> 4)
        let list = candidates.list(cell) ?? candidates.build(cell, channels: channels, count: count)
        var best = 0, bestDistance = Int.max
        for k in 0..<list.count {
            let i = Int(list[k]), q = p + i &* 3
            let dr = Int(r) &- Int(q[0]), dg = Int(g) &- Int(q[1]), db = Int(b) &- Int(q[2])
            let dd = dr &* dr &+ dg &* dg &+ db &* db
            if dd < bestDistance { bestDistance = dd; best = i }
        }
        return best
    }

    /// The entries that can be nearest to a colour of a cell (16 levels a channel, 4096 cells),
    /// per cell, in index order: those whose least distance to the cell is at most the least
    /// of the entries' greatest distances. Any colour of the cell is at most that far from
    /// the entry with that greatest distance, so its nearest entries (ties included) are
    /// among them.
    final class Candidates {
        private static let cells = 4096
        /// Where each cell's list starts in `entries`, or `UInt32.max` while not built.
        private let start: UnsafeMutablePointer<UInt32>
        private let length: UnsafeMutablePointer<UInt16>
        /// Room for every cell's list of all 256 entries (pages are touched as lists fill).
        private let entries: UnsafeMutablePointer<UInt8>
        private var used = 0
        private let least: UnsafeMutablePointer<SIMD8<Int32>>

        init() {
            start = .allocate(capacity: Self.cells)
            start.initialize(repeating: UInt32.max, count: Self.cells)
            length = .allocate(capacity: Self.cells)
            length.initialize(repeating: 0, count: Self.cells)
            entries = .allocate(capacity: Self.cells * 256)
            least = .allocate(capacity: 32)
            least.initialize(repeating: .zero, count: 32)
        }

        deinit { start.deallocate(); length.deallocate(); entries.deallocate(); least.deallocate() }

        /// Forgets every list (a new palette).
        func reset() {
            start.update(repeating: UInt32.max, count: Self.cells)
            used = 0
        }

        @inline(__always)
        func list(_ cell: Int) -> UnsafeBufferPointer<UInt8>? {
            let s = start[cell]
            return s == UInt32.max ? nil : UnsafeBufferPointer(start: entries + Int(s), count: Int(length[cell]))
        }

        /// Builds the list of `cell` for the palette in `channels` (`SixelPaletteMap`'s layout:
        /// the channels apart, entries past `count` far away).
        func build(_ cell: Int, channels: UnsafePointer<SIMD8<Int32>>, count: Int) -> UnsafeBufferPointer<UInt8> {
            let blocks = (count + 7) / 8
            let lo = SIMD3<Int32>(Int32(cell >> 8), Int32((cell >> 4) & 15), Int32(cell & 15)) &<< 4
            var bound = SIMD8<Int32>(repeating: Int32.max)
            for k in 0..<blocks {
                var near = SIMD8<Int32>.zero, far = SIMD8<Int32>.zero
                for c in 0..<3 {
                    let v = channels[c * 32 + k]
                    let l = SIMD8<Int32>(repeating: lo[c]), h = SIMD8<Int32>(repeating: lo[c] + 15)
                    // Outside the cell: the distance to its nearer face; inside: 0.
                    let out = pointwiseMax(pointwiseMax(l &- v, v &- h), .zero)
                    let most = pointwiseMax(v &- l, h &- v)
                    near &+= out &* out
                    far &+= most &* most
                }
                least[k] = near
                bound = pointwiseMin(bound, far)
            }
            let m = bound.min()
            let first = used
            let lanes = UnsafeRawPointer(least).assumingMemoryBound(to: Int32.self)
            for i in 0..<count where lanes[i] <= m {
                entries[used] = UInt8(i)
                used += 1
            }
            start[cell] = UInt32(first)
            length[cell] = UInt16(used - first)
            return UnsafeBufferPointer(start: entries + first, count: used - first)
        }
    }

    @inline(__always)
    private static func nearest(_ r: UInt8, _ g: UInt8, _ b: UInt8, in p: UnsafePointer<UInt8>, count: Int) -> Int {
        var best = 0, bestDistance = Int.max
        for i in 0..<count {
            let q = p + i * 3
            let dr = Int(r) - Int(q[0]), dg = Int(g) - Int(q[1]), db = Int(b) - Int(q[2])
            let dd = dr * dr + dg * dg + db * db
            if dd < bestDistance { bestDistance = dd; best = i; if dd == 0 { break } }
        }
        return best
    }

    /// PSNR in dB of a squared-error sum over `pixels` pixels (3 channels); infinity when exact.
    static func psnr(squaredError: UInt64, pixels: Int) -> Double {
        guard squaredError > 0, pixels > 0 else { return .infinity }
        let mse = Double(squaredError) / Double(pixels * 3)
        return 10 * log10(255 * 255 / mse)
    }
}
