import CZlib
import AnimatedCore

/// zlib (RFC 1950) compression of frame payloads, as the kitty graphics protocol's `o=z` expects.
package enum Zlib {
    /// `bytes` compressed at `level` (1 fastest … 9 smallest). zlib's one-shot `compress2`
    /// into a buffer of `compressBound` bytes cannot run out of room, so it only fails on
    /// memory exhaustion, which traps like any other allocation failure.
    ///
    /// The result is copied to its own size when it is much smaller than the bound: frame
    /// buffers keep these arrays and count their `count`, not the capacity they would hold on to
    /// (a sixel frame compressed 6× kept all of its original size).
    package static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32) -> [UInt8] {
        let bound = bound(bytes.count)
        let out = [UInt8](unsafeUninitializedCapacity: bound) { out, n in
            n = compress(bytes, level: level, into: UnsafeMutableRawBufferPointer(out))
        }
        guard out.count * 4 < bound * 3 else { return out }
        return [UInt8](unsafeUninitializedCapacity: out.count) { copy, n in
            out.withUnsafeBufferPointer { copy.baseAddress!.update(from: $0.baseAddress!, count: $0.count) }
            n = out.count
        }
    }

    /// Inputs at least this large are compressed in two halves at once (`compressInHalves`).
    package static let halvesThreshold = 1 << 20

    /// As `compress`, for a large input (at least `halvesThreshold` bytes; smaller ones go to
    /// `compress`) in two halves at once, the second on a thread of its own: one zlib stream,
    /// the first half's deflate blocks ending on a byte boundary (a sync flush) and the second
    /// half's following them, the Adler-32 of the whole at the end. A 1280×720 kitty frame
    /// (2.7 MB of RGB) took about 10 ms to compress on the producer thread alone, before the
    /// first image could be sent. The halves share no history: the stream is a few hundred bytes
    /// longer than one deflate of the whole.
    package static func compressInHalves(_ bytes: UnsafeRawBufferPointer, level: Int32) -> [UInt8] {
        let n = bytes.count
        guard n >= halvesThreshold, let base = bytes.baseAddress else { return compress(bytes, level: level) }
        let half = n / 2
        return inHalves(length: n, firstLength: half, level: level) { room1, room2 in
            (Part(input: UnsafeRawBufferPointer(start: base, count: half), output: room1),
             Part(input: UnsafeRawBufferPointer(start: base + half, count: n - half), output: room2))
        } ?? []
    }

    /// As `compressInHalves` of the RGB of `rgba` (4 bytes a pixel), without making the RGB:
    /// each thread copies its half's pixels a few thousand at a time into a small buffer that
    /// deflate reads. Nil if a pixel is not opaque (the caller then sends RGBA), or if the RGB
    /// is smaller than `halvesThreshold`. The first frame of a 1280×720 video spent 3.6 ms
    /// making its RGB (2.7 MB of new pages) on the producer thread before compressing it.
    ///
    /// `publish`: the stream's bytes as they are made, in order, on this thread (the first
    /// frame's upload written while it is compressed, `FrameStream`): the header and the first
    /// half's blocks as deflate gives them, the second half's and the checksum at the end.
    /// Only for pixels known to be opaque (`KittyFramePreparer.allOpaque`): a half that gave up
    /// would leave what was published incomplete.
    package static func compressOpaqueRGBInHalves(_ rgba: UnsafeRawBufferPointer, level: Int32,
                                                  publish: Publish? = nil) -> [UInt8]? {
        let pixels = rgba.count / 4
        guard pixels * 3 >= halvesThreshold, let base = rgba.baseAddress else { return nil }
        let half = pixels / 2
        return inHalves(length: pixels * 3, firstLength: half * 3, level: level, publish: publish) { room1, room2 in
            (Part(input: UnsafeRawBufferPointer(start: base, count: half * 4), output: room1, fromRGBA: true),
             Part(input: UnsafeRawBufferPointer(start: base + half * 4, count: (pixels - half) * 4), output: room2,
                  fromRGBA: true))
        }
    }

    /// Where a stream's bytes go as they are made (see `compressOpaqueRGBInHalves`).
    package typealias Publish = (UnsafeRawBufferPointer) -> Void

    /// One zlib stream of `length` bytes deflated by two parts at once (`parts` makes them
    /// for their rooms), the first covering `firstLength` of them; nil if a part gave up.
    private static func inHalves(length n: Int, firstLength half: Int, level: Int32, publish: Publish? = nil,
                                 parts: (UnsafeMutableRawBufferPointer, UnsafeMutableRawBufferPointer) -> (Part, Part)) -> [UInt8]? {
        // Room for each half: compressBound covers a whole zlib stream; a sync flush adds at
        // most 5 bytes (an empty stored block) and one byte of bits; so does each block a
        // published half ends early (`Part.publishedBlock`), at most.
        let early = publish == nil ? 0 : 8 * (half / (3 * 8192 * Part.publishedBlock) + 1)
        let room1 = bound(half) + 8 + early, room2 = bound(n - half) + 8
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 + room1 + room2 + 4, alignment: 16)
        defer { out.deallocate() }
        let (first, second) = parts(UnsafeMutableRawBufferPointer(start: out.baseAddress! + 2, count: room1),
                                    UnsafeMutableRawBufferPointer(start: out.baseAddress! + 2 + room1, count: room2))
        // The zlib header compress2 writes for this level (deflate's level flags), then the
        // first half's blocks, the second half's moved up behind them, then the Adler-32
        // (big-endian).
        let flags: Int = level == 1 ? 0 : level >= 2 && level <= 5 ? 1 : level == 6 || level == -1 ? 2 : 3
        var header = 0x78 << 8 | flags << 6
        header += 31 - header % 31
        let o = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        o[0] = UInt8(header >> 8); o[1] = UInt8(header & 0xFF)
        publish?(UnsafeRawBufferPointer(start: o, count: 2))
        SideThread.run({ second.deflate(level: level, last: true) },
                       alongside: { first.deflate(level: level, last: false, publish: publish) })
        guard first.complete && second.complete else { return nil }
        (o + 2 + first.length).update(from: o + 2 + room1, count: second.length)
        let adler = UInt32(adler32_combine(first.adler, second.adler, Int(n - half)))
        let end = 2 + first.length + second.length
        for k in 0..<4 { o[end + k] = UInt8(truncatingIfNeeded: adler >> (24 - 8 * k)) }
        publish?(UnsafeRawBufferPointer(start: o + 2 + first.length, count: second.length + 4))
        return [UInt8](UnsafeRawBufferPointer(start: out.baseAddress!, count: end + 4))
    }

    /// One half of `compressInHalves`: its input, room for its deflate blocks, and what deflating
    /// it gave. @unchecked Sendable: the two halves' inputs and rooms do not overlap, and each
    /// part is used by one thread at a time (the side thread's until it is joined).
    private final class Part: @unchecked Sendable {
        let input: UnsafeRawBufferPointer
        let output: UnsafeMutableRawBufferPointer
        /// The input is RGBA pixels, of which the RGB is deflated (all opaque, else it gives up).
        let fromRGBA: Bool
        var length = 0
        var adler: uLong = 0
        /// False when an RGBA part met a pixel that is not opaque (nothing usable then).
        var complete = true

        /// Chunks (8192 pixels) between the blocks a published half ends (see `deflate`).
        static let publishedBlock = 4

        init(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer, fromRGBA: Bool = false) {
            self.input = input; self.output = output; self.fromRGBA = fromRGBA
        }

        /// Raw deflate blocks of `input` (no zlib header or trailer): `last` ends with the
        /// final block, otherwise a sync flush leaves the blocks open and byte-aligned.
        /// `publish` (RGBA input): the blocks as deflate gives them, after each chunk.
        func deflate(level: Int32, last: Bool, publish: Publish? = nil) {
            var s = z_stream()
            let rc = deflateInit2_(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            precondition(rc == Z_OK, "zlib deflateInit2 failed (\(rc))")
            defer { deflateEnd(&s) }
            let start = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
            s.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            s.avail_out = uInt(output.count)
            let end = last ? Z_FINISH : Z_SYNC_FLUSH
            if fromRGBA {
                // 8192 pixels (24 KB of RGB) at a time: the buffer stays in cache for deflate.
                let chunk = 8192
                let rgb = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk * 3)
                defer { rgb.deallocate() }
                var src = start, left = input.count / 4
                var published = 0, chunks = 0
                adler = CZlib.adler32(0, nil, 0)
                while left > 0 {
                    let n = min(left, chunk)
                    var alpha: UInt8 = 255
                    for i in 0..<n {
                        let p = src + 4 * i, o = rgb + 3 * i
                        o[0] = p[0]; o[1] = p[1]; o[2] = p[2]
                        alpha &= p[3]
                    }
                    guard alpha == 255 else { complete = false; return }
                    adler = CZlib.adler32(adler, rgb, uInt(3 * n))
                    src += 4 * n
                    left -= n
                    s.next_in = rgb
                    s.avail_in = uInt(3 * n)
                    chunks += 1
                    // Published, a block is ended every `publishedBlock` chunks: at level 1 a
                    // block of a flat frame can span a whole half (16K symbols of long
                    // matches), and nothing would come out before it ends.
                    let flush = left == 0 ? end : publish != nil && chunks % Self.publishedBlock == 0 ? Z_BLOCK : Z_NO_FLUSH
                    let r = CZlib.deflate(&s, flush)
                    precondition((left > 0 || !last ? r == Z_OK : r == Z_STREAM_END) && s.avail_in == 0 && s.avail_out > 0,
                                 "zlib deflate did not finish (\(r))")
                    if let publish {
                        let made = output.count - Int(s.avail_out)
                        if made > published {
                            publish(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(output)[published..<made]))
                            published = made
                        }
                    }
                }
            } else {
                s.next_in = UnsafeMutablePointer(mutating: start)
                s.avail_in = uInt(input.count)
                let r = CZlib.deflate(&s, end)
                precondition((last ? r == Z_STREAM_END : r == Z_OK) && s.avail_in == 0 && s.avail_out > 0,
                             "zlib deflate did not finish (\(r))")
                adler = CZlib.adler32(1, start, uInt(input.count))
            }
            length = output.count - Int(s.avail_out)
        }
    }

    /// Room enough for `count` bytes compressed (zlib's `compressBound`).
    package static func bound(_ count: Int) -> Int { Int(compressBound(uLong(count))) }

    /// `bytes` compressed at `level` into `space` (at least `bound(bytes.count)` bytes); the
    /// compressed length.
    package static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32, into space: UnsafeMutableRawBufferPointer) -> Int {
        precondition(space.count >= bound(bytes.count))
        var size = uLongf(space.count)
        let rc = compress2(space.baseAddress!.assumingMemoryBound(to: Bytef.self), &size,
                           bytes.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(bytes.count), level)
        precondition(rc == Z_OK, "zlib compress2 failed (\(rc))")
        return Int(size)
    }

    /// `bytes` (a complete zlib stream) inflated into `space`; the length inflated, or nil if
    /// the stream is damaged or does not fit.
    package static func decompress(_ bytes: UnsafeRawBufferPointer, into space: UnsafeMutableRawBufferPointer) -> Int? {
        guard let out = space.baseAddress, let input = bytes.baseAddress else { return nil }
        var size = uLongf(space.count)
        let rc = uncompress(out.assumingMemoryBound(to: Bytef.self), &size,
                            input.assumingMemoryBound(to: Bytef.self), uLong(bytes.count))
        return rc == Z_OK ? Int(size) : nil
    }

    /// `bytes` inflated, if they are a complete zlib stream of at most `limit` bytes (tests,
    /// and the protocol's own round-trip checks).
    package static func decompress(_ bytes: [UInt8], limit: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max(1, limit))
        let size = out.withUnsafeMutableBytes { o in bytes.withUnsafeBytes { decompress($0, into: o) } }
        guard let size else { return nil }
        out.removeSubrange(size...)
        return out
    }
}
