import AnimatedCore

/// Writes palette indices as a sixel image (`DCS 0;0;0 q " 1;1;W;H #palette bands ST`).
///
/// Per band of six rows, one pass scatters every pixel's bit into its colour's row of masks
/// (`masks[c·width + x] |= 1 << dy`) and counts the colour's pixels: stores only, no min/max
/// kept per pixel (a colour's column range through memory was a chain of dependent loads and
/// stores, a third of the writer's time). Then the colours of the band are written, most
/// pixels first, each with run-length codes (`!n`).
///
/// Overdraw: a later colour paints over an earlier one, so a colour's run may also set the
/// bits of pixels that a colour written after it owns. Each colour's row is cut into the
/// fewest runs for which one sixel value fits every column: it holds the colour's own bits
/// and none of the bits already painted by the colours before it (`painted`); greedy
/// longest-first cutting is optimal for such interval constraints. The most common colour
/// then takes one run across the band, and a noisy band costs fewer runs: on the benchmark
/// video's frames (1200×675) 17 % fewer bytes than exact masks (9 % fewer compressed), the
/// same picture. A trailing stretch past a colour's last pixel is left out.
///
/// Memory: one mask row per register (256 × width bytes), the painted row, a band of indices
/// and the output buffer, all reused from frame to frame.
///
/// The whole image is painted (every pixel's register is set). `P2 = 0`, as libsixel writes:
/// a run of the mlterm test on the loaded machine missed a frame with `P2 = 1` (unset pixels
/// transparent), none since.
final class SixelBandWriter {
    private var masks: UnsafeMutablePointer<UInt8>
    private var painted: UnsafeMutablePointer<UInt8>
    /// One band's indices (6 × width) for the form that asks for them band by band.
    private var band: UnsafeMutablePointer<UInt8>
    private var maskWidth = 0
    /// Pixels of each colour in the band: four tables of 256, summed into the first.
    private let counts: UnsafeMutablePointer<UInt32>
    private let order: UnsafeMutablePointer<Int>
    private var out: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var length = 0
    /// Where the bytes go while they are written, in order (`SixelEncoder.Publish`), and how
    /// many of `out`'s have gone (nil: the image is only returned whole).
    private var publish: SixelEncoder.Publish?
    private var published = 0
    /// Bytes gathered before they are handed to `publish`: each hand-over is a write to the
    /// terminal (`FrameStream.drain`), a system call and the terminal's read.
    static let publishStep = 16 << 10

    init() {
        masks = .allocate(capacity: 1)
        painted = .allocate(capacity: 1)
        band = .allocate(capacity: 1)
        counts = .allocate(capacity: 4 * 256)
        counts.initialize(repeating: 0, count: 4 * 256)
        order = .allocate(capacity: 256)
        order.initialize(repeating: 0, count: 256)
        capacity = 1 << 16
        out = .allocate(capacity: capacity)
    }

    deinit {
        masks.deallocate(); painted.deallocate(); band.deallocate(); counts.deallocate(); order.deallocate()
        out.deallocate()
    }

    /// The sixel image of `indices` (`width`×`height` palette indices) with `palette` (RGB triples).
    func write(indices: UnsafePointer<UInt8>, width w: Int, height h: Int, palette: [UInt8]) -> [UInt8] {
        Array(writeInPlace(indices: indices, width: w, height: h, palette: palette))
    }

    /// As `write`, into the writer's own buffer: the bytes stay valid until the next call.
    func writeInPlace(indices: UnsafePointer<UInt8>, width w: Int, height h: Int, palette: [UInt8]) -> UnsafeBufferPointer<UInt8> {
        begin(width: w, height: h, palette: palette)
        appendBands(indices: indices, width: w, rows: 0..<h, height: h)
        return finish()
    }

    /// As `writeInPlace`, each band's indices asked of `fill` just before the band is written:
    /// rows `y0..<y0 + n` (n ≤ 6, y0 a multiple of 6) into `n`·`w` bytes. No index plane of the
    /// whole image exists (0.8 MB at 1200×675), and a band's indices are still in the cache when
    /// they are read.
    ///
    /// `publish`: given the image's bytes in order as its bands are written.
    func writeInPlace(width w: Int, height h: Int, palette: [UInt8], publish: SixelEncoder.Publish? = nil,
                      bands fill: (_ y0: Int, _ n: Int, _ into: UnsafeMutablePointer<UInt8>) -> Void) -> UnsafeBufferPointer<UInt8> {
        self.publish = publish
        defer { self.publish = nil }
        begin(width: w, height: h, palette: palette)
        var y0 = 0
        while y0 < h {
            let n = min(6, h - y0)
            fill(y0, n, band)
            appendBands(indices: band, origin: y0, width: w, rows: y0..<(y0 + n), height: h)
            handOver()
            y0 += n
        }
        return finish()
    }

    /// As `writeInPlace`, the bands of the lower half written by `helper` (another writer) on a
    /// thread of its own meanwhile: the same bytes in about half the time, for large frames
    /// (the bands of a 1200×675 frame took about 5 ms on the producer thread alone). Each
    /// half's indices are made first on its own thread: `fillUpper` on this one, `fillLower` on
    /// the helper's, each given its rows (`indices + y·w` onwards) to fill before their bands
    /// are written (a first frame's mapping goes in halves so: the whole frame's took 5 ms on
    /// the producer thread alone, with a core idle). Once its own bands are written, this
    /// thread takes the lower half's last bands until the two meet (`SixelLowerBands`), and
    /// puts them after the helper's.
    ///
    /// The upper half is mapped band by band, each band's rows just before they are written
    /// (the same lookups in the same order as one call for the half): its bytes can go to
    /// `publish` as they are written, from the first band on. The lower half's go when all is
    /// written (its bands are written out of order, two threads at once).
    func writeInPlace(indices: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int, palette: [UInt8],
                      helper: SixelBandWriter, publish: SixelEncoder.Publish? = nil, fillUpper: (Range<Int>) -> Void,
                      fillLower: @escaping @Sendable (Range<Int>) -> Void) -> UnsafeBufferPointer<UInt8> {
        self.publish = publish
        defer { self.publish = nil }
        guard h >= 12 else {
            fillUpper(0..<h)
            return writeInPlace(indices: indices, width: w, height: h, palette: palette)
        }
        let split = Self.split(height: h)
        begin(width: w, height: h, palette: palette)
        helper.length = 0
        helper.fitRows(w)
        // Room for the whole image at once (a 1200×675 video frame's sixel is about 0.4 bytes
        // a pixel), its lower half in the helper's: a buffer grown while the bands are written
        // is copied onto fresh pages each time (three times from the first 64 KB), and pages
        // past what is written are never touched.
        reserve(w * h / 2)
        helper.reserve(w * h / 4)
        let bands = SixelLowerBands(top: split, height: h)
        let lower = LowerHalf(writer: helper, indices: indices, bands: bands)
        // Bands this thread took from the bottom: their bytes follow the upper half's in
        // `out`, last band first, each at (start, end).
        var upperEnd = 0
        var taken: [(start: Int, end: Int)] = []
        SideThread.run({
            lower.bands.start()
            fillLower(split..<h)
            lower.bands.mapped()
            while let b = lower.bands.claimFirst() {
                lower.writer.appendBands(indices: lower.indices, width: w, rows: lower.bands.rows(b), height: h)
            }
        }, alongside: {
            var y0 = 0
            while y0 < split {
                fillUpper(y0..<(y0 + 6))
                appendBands(indices: indices, width: w, rows: y0..<(y0 + 6), height: h)
                handOver()
                y0 += 6
            }
            upperEnd = length
            guard bands.waitForMappingIfStarted() else { return }
            while let b = bands.claimLast() {
                let start = length
                appendBands(indices: indices, width: w, rows: bands.rows(b), height: h)
                taken.append((start, length))
            }
        })
        // The helper's bands follow the upper half's, then the taken ones, in band order.
        let takenBytes = length - upperEnd
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: takenBytes)
        defer { moved.deallocate() }
        moved.update(from: out + upperEnd, count: takenBytes)
        length = upperEnd
        reserve(helper.length + takenBytes)
        (out + length).update(from: helper.out, count: helper.length)
        length += helper.length
        for (start, end) in taken.reversed() {
            (out + length).update(from: moved + (start - upperEnd), count: end - start)
            length += end - start
        }
        return finish()
    }

    /// Where the halves of an image `h` (≥ 12) rows tall meet: a band boundary near the middle.
    static func split(height h: Int) -> Int { h / 12 * 6 }

    /// The helper writer, the indices and the lower half's bands for the side thread.
    /// @unchecked Sendable: the helper is used by the side thread alone until `SideThread.run`
    /// returns; of the indices, each thread writes only its half's rows, and reads only its
    /// own rows and, after `SixelLowerBands` said they are mapped, the lower bands it claimed.
    private struct LowerHalf: @unchecked Sendable {
        let writer: SixelBandWriter
        let indices: UnsafeMutablePointer<UInt8>
        let bands: SixelLowerBands
    }

    /// Mask rows and the painted row of `w` bytes (all zero).
    func fitRows(_ w: Int) {
        if maskWidth != w {
            masks.deallocate(); painted.deallocate(); band.deallocate()
            band = .allocate(capacity: 6 * w)
            // 8 spare bytes: the word-wide scans may read up to 7 bytes past a row's end.
            masks = .allocate(capacity: 256 * w + 8)
            masks.initialize(repeating: 0, count: 256 * w + 8)
            painted = .allocate(capacity: w + 8)
            painted.initialize(repeating: 0, count: w + 8)
            maskWidth = w
        }
    }

    /// Starts an image: the DCS, the raster attributes and the palette.
    private func begin(width w: Int, height h: Int, palette: [UInt8]) {
        length = 0
        published = 0
        fitRows(w)
        reserve(48 + palette.count / 3 * 20)
        put(0x1B); put(0x50); put(0x30); put(0x3B); put(0x30); put(0x3B); put(0x30); put(0x71)  // ESC P 0;0;0 q
        put(0x22); put(0x31); put(0x3B); put(0x31); put(0x3B)                                    // " 1;1;
        putNumber(w); put(0x3B); putNumber(h)
        let colours = palette.count / 3
        for i in 0..<colours {
            // Sixel colours are percentages.
            put(0x23); putNumber(i); put(0x3B); put(0x32)                                        // #i;2
            for c in 0..<3 { put(0x3B); putNumber((Int(palette[i * 3 + c]) * 100 + 127) / 255) }
        }
    }

    /// Appends the bands of `rows` (starting on a band boundary) of an image `height` rows
    /// tall, each but the image's last followed by `-`. Row `y`'s indices are at
    /// `indices + (y - origin)·w`.
    private func appendBands(indices: UnsafePointer<UInt8>, origin: Int = 0, width w: Int, rows: Range<Int>, height h: Int) {
        let masks = masks, counts = counts, order = order, painted = painted
        var y0 = rows.lowerBound
        while y0 < rows.upperBound {
            for dy in 0..<min(6, h - y0) {
                let bit = UInt8(1 << dy)
                let row = indices + (y0 &+ dy &- origin) &* w
                // Four count tables in turn: in a run of one colour each increment would
                // otherwise wait for the store of the one before.
                var x = 0
                while x &+ 4 <= w {
                    let c0 = Int(row[x]), c1 = Int(row[x &+ 1]), c2 = Int(row[x &+ 2]), c3 = Int(row[x &+ 3])
                    masks[c0 &* w &+ x] |= bit
                    masks[c1 &* w &+ x &+ 1] |= bit
                    masks[c2 &* w &+ x &+ 2] |= bit
                    masks[c3 &* w &+ x &+ 3] |= bit
                    counts[c0] &+= 1
                    counts[256 &+ c1] &+= 1
                    counts[512 &+ c2] &+= 1
                    counts[768 &+ c3] &+= 1
                    x &+= 4
                }
                while x < w {
                    let c = Int(row[x])
                    masks[c &* w &+ x] |= bit
                    counts[c] &+= 1
                    x &+= 1
                }
            }
            var n = 0
            for c in 0..<256 {
                let total = counts[c] &+ counts[256 &+ c] &+ counts[512 &+ c] &+ counts[768 &+ c]
                counts[256 &+ c] = 0; counts[512 &+ c] = 0; counts[768 &+ c] = 0
                counts[c] = total
                if total != 0 { order[n] = c; n &+= 1 }
            }
            // Most pixels first (ties by register, so the output is deterministic).
            var sorted = UnsafeMutableBufferPointer(start: order, count: n)
            sorted.sort { a, b in counts[a] != counts[b] ? counts[a] > counts[b] : a < b }
            painted.update(repeating: 0, count: w)
            for k in 0..<n {
                let c = order[k]
                counts[c] = 0
                reserve(16 + 2 * w)
                if k > 0 { put(0x24) }             // $: back to the band's start
                put(0x23); putNumber(c)            // #c
                let m = masks + c &* w
                let end = Self.lastNonZero(m, w) &+ 1
                writeRuns(own: m, painted: painted, end: end)
                // Its pixels are painted now; its mask row is empty again for the next band.
                // Words, then bytes: a word past `end` could reach the next colour's row.
                var x = 0
                while x &+ 8 <= end {
                    let p = UnsafeMutableRawPointer(painted + x), q = UnsafeMutableRawPointer(m + x)
                    p.storeBytes(of: p.loadUnaligned(as: UInt64.self) | q.loadUnaligned(as: UInt64.self), as: UInt64.self)
                    q.storeBytes(of: 0, as: UInt64.self)
                    x &+= 8
                }
                while x < end { painted[x] |= m[x]; m[x] = 0; x &+= 1 }
            }
            y0 += 6
            reserve(2)
            if y0 < h { put(0x2D) }               // -: next band
        }
    }

    /// Ends the image (ST); its bytes. Those not yet handed to `publish` go now.
    private func finish() -> UnsafeBufferPointer<UInt8> {
        reserve(2)
        put(0x1B); put(0x5C)
        handOver(all: true)
        return UnsafeBufferPointer(start: out, count: length)
    }

    /// Hands the bytes written since the last hand-over to `publish`, once there are
    /// `publishStep` of them (`all`: whatever there is).
    private func handOver(all: Bool = false) {
        guard let publish, length - published >= (all ? 1 : Self.publishStep) else { return }
        publish(UnsafeRawBufferPointer(start: out + published, count: length - published))
        published = length
    }

    /// The fewest runs over columns `0..<end`: a run's value holds every own bit of its
    /// columns (`must`) and no bit painted before (`forbidden`), so a run grows while the two
    /// stay disjoint.
    @inline(__always) private func writeRuns(own m: UnsafePointer<UInt8>, painted: UnsafePointer<UInt8>, end: Int) {
        var x = 0
        while x < end {
            var must = m[x], forbidden = painted[x]
            var j = x &+ 1
            while j < end {
                if must == 0 {
                    // A gap before the colour's next pixel: nothing can clash yet, so only
                    // what is painted under it is gathered, eight columns at a time.
                    var under: UInt64 = 0
                    while j &+ 8 <= end && UnsafeRawPointer(m + j).loadUnaligned(as: UInt64.self) == 0 {
                        under |= UnsafeRawPointer(painted + j).loadUnaligned(as: UInt64.self)
                        j &+= 8
                    }
                    under |= under >> 32; under |= under >> 16; under |= under >> 8
                    forbidden |= UInt8(truncatingIfNeeded: under)
                    if j >= end { break }
                }
                // Eight columns at once where the colour has no pixel and nothing painted
                // clashes with the run (the rows have 8 spare bytes after them).
                if j &+ 8 <= end && UnsafeRawPointer(m + j).loadUnaligned(as: UInt64.self) == 0 {
                    var p = UnsafeRawPointer(painted + j).loadUnaligned(as: UInt64.self)
                    if p & (UInt64(must) &* 0x0101_0101_0101_0101) == 0 {
                        p |= p >> 32; p |= p >> 16; p |= p >> 8
                        forbidden |= UInt8(truncatingIfNeeded: p)
                        j &+= 8; continue
                    }
                }
                let mj = m[j], pj = painted[j]
                if (must | mj) & (forbidden | pj) != 0 { break }
                must |= mj; forbidden |= pj
                j &+= 1
            }
            run(must, j &- x)
            x = j
        }
    }

    /// The index of the last non-zero byte of `m[0..<w]`, or -1.
    @inline(__always) private static func lastNonZero(_ m: UnsafePointer<UInt8>, _ w: Int) -> Int {
        var x = w
        while x >= 8 && UnsafeRawPointer(m + (x &- 8)).loadUnaligned(as: UInt64.self) == 0 { x &-= 8 }
        while x > 0 && m[x - 1] == 0 { x &-= 1 }
        return x &- 1
    }

    @inline(__always) private func run(_ v: UInt8, _ n: Int) {
        let ch = 63 + v
        if n > 3 { put(0x21); putNumber(n); put(ch) } else { for _ in 0..<n { put(ch) } }
    }

    @inline(__always) private func put(_ b: UInt8) { out[length] = b; length &+= 1 }

    /// Decimal digits of `v` (0 ≤ v, at most 10 digits: the reservations count on it).
    @inline(__always) private func putNumber(_ v: Int) {
        if v < 10 { put(UInt8(48 &+ v)); return }
        if v < 100 { put(UInt8(48 &+ v / 10)); put(UInt8(48 &+ v % 10)); return }
        if v < 1000 { put(UInt8(48 &+ v / 100)); put(UInt8(48 &+ v / 10 % 10)); put(UInt8(48 &+ v % 10)); return }
        putNumber(v / 10)
        put(UInt8(48 &+ v % 10))
    }

    private func reserve(_ extra: Int) {
        guard length + extra > capacity else { return }
        var c = capacity * 2
        while c < length + extra { c *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        bigger.update(from: out, count: length)
        out.deallocate()
        out = bigger; capacity = c
    }
}
