import CPNG

/// Decodes the pixels of one PNG image or APNG frame with libpng, to 8-bit RGBA.
///
/// libpng reads a PNG stream produced on demand: the fixed chunks (signature, IHDR with the
/// frame's size, PLTE, tRNS) from memory, then each IDAT/fdAT payload of the frame straight from
/// the `ByteSource` into libpng's buffer as an IDAT chunk (the original chunk's CRC is checked on
/// the way), then IEND. Nothing else is passed on: the policy ignores gAMA, cHRM, sRGB and iCCP.
/// Nothing is allocated per frame once the buffers have grown to the largest frame (libpng's own
/// memory comes from a reused arena); a frame's compressed data is never held whole.
final class PNGFrameDecoder {
    private let source: ByteSource
    /// Signature, IHDR, PLTE, tRNS; the IHDR size is patched for each frame.
    private let prefix: UnsafeMutableBufferPointer<UInt8>
    /// libpng's error text (128 bytes).
    private let message: UnsafeMutablePointer<CChar>
    /// [0, 8): the IDAT chunk header being sent; [8, 16): bytes read from the file.
    private let small: UnsafeMutablePointer<UInt8>
    private let idatTypeCRC: UInt32
    /// libpng's and zlib's memory, reused from frame to frame.
    private let arena: UnsafeMutablePointer<animplay_png_arena>

    // Where libpng is in the stream of the frame being decoded.
    private enum Phase { case prefix, header, payload, trailer, end, done }
    private var segments: [PNGDataSegment] = []
    private var phase = Phase.done
    private var segment = 0
    private var offset = 0
    private var crc: UInt32 = 0

    private static let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    private static let idat: [UInt8] = [0x49, 0x44, 0x41, 0x54]

    init(source: ByteSource, header: PNGHeader, palette: [UInt8]?, transparency: [UInt8]?) {
        self.source = source
        var bytes = APNGChunkParser.signature
        func chunk(_ type: String, _ data: [UInt8]) {
            // libpng is told to ignore CRCs (the file's were checked), so none is computed here.
            bytes += be32(UInt32(data.count)) + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        chunk("IHDR", be32(UInt32(header.width)) + be32(UInt32(header.height))
              + [header.bitDepth, header.colorType, 0, 0, header.interlace])
        if let palette { chunk("PLTE", palette) }
        if let transparency { chunk("tRNS", transparency) }
        prefix = .allocate(capacity: bytes.count)
        _ = prefix.initialize(from: bytes)
        message = .allocate(capacity: 128)
        message.initialize(repeating: 0, count: 128)
        small = .allocate(capacity: 16)
        small.initialize(repeating: 0, count: 16)
        idatTypeCRC = Self.idat.withUnsafeBufferPointer { animplay_crc32($0.baseAddress!, 4) }
        arena = .allocate(capacity: 1)
        arena.initialize(to: animplay_png_arena())
    }

    deinit {
        prefix.deallocate()
        message.deallocate()
        small.deallocate()
        animplay_png_arena_release(arena)
        arena.deallocate()
    }

    /// Decodes a `width`×`height` image whose zlib data is in `segments` to RGBA rows `stride`
    /// bytes apart at `out`. Throws `.invalid` with libpng's or the reader's message; rows
    /// written before the error keep their pixels.
    func decode(width: Int, height: Int, segments: [PNGDataSegment],
                into out: UnsafeMutablePointer<UInt8>, stride: Int) throws(AnimatedError) {
        try run(width: width, height: height, segments: segments) { read in
            animplay_png_decode_rgba(read, Unmanaged.passUnretained(self).toOpaque(), arena,
                                     UInt32(width), UInt32(height), out, stride, message)
        }
    }

    /// Decodes like `decode`, but row by row: each RGBA row goes to `onRow` (the image is never
    /// held whole). Interlaced images are refused.
    func decodeRows(width: Int, height: Int, segments: [PNGDataSegment],
                    onRow: (Int, UnsafePointer<UInt8>) -> Void) throws(AnimatedError) {
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 4)
        defer { row.deallocate() }
        try withoutActuallyEscaping(onRow) { onRow throws(AnimatedError) in
            var sink = onRow
            try withUnsafeMutablePointer(to: &sink) { sinkPointer throws(AnimatedError) in
                try run(width: width, height: height, segments: segments) { read in
                    animplay_png_decode_rows(read, Unmanaged.passUnretained(self).toOpaque(), arena,
                                             UInt32(width), UInt32(height), row, { context, y, rgba in
                        context!.assumingMemoryBound(to: ((Int, UnsafePointer<UInt8>) -> Void).self).pointee(Int(y), rgba!)
                    }, UnsafeMutableRawPointer(sinkPointer), message)
                }
            }
        }
    }

    /// Sets up the stream for `segments` (the PNG signature and IHDR for the size, then the
    /// frame's data chunks), runs one of the C decoders with `fill` as libpng's read callback,
    /// and turns its failure into `.invalid` with libpng's or the reader's message.
    private func run(width: Int, height: Int, segments: [PNGDataSegment],
                     _ decode: (animplay_png_read_fn) -> Int32) throws(AnimatedError) {
        putBE32(prefix.baseAddress! + 16, UInt32(width))
        putBE32(prefix.baseAddress! + 20, UInt32(height))
        self.segments = segments
        phase = .prefix
        offset = 0
        segment = 0
        let rc = withExtendedLifetime(self) {
            decode({ context, out, count, message in
                Unmanaged<PNGFrameDecoder>.fromOpaque(context!).takeUnretainedValue()
                    .fill(out!, count: count, message: message!)
            })
        }
        self.segments = []
        phase = .done
        if rc != 0 { throw .invalid(String(cString: message)) }
    }

    /// libpng's read callback: exactly `count` bytes of the stream, or non-zero with a message.
    /// Never throws or jumps (libpng raises the error in C after this returns).
    private func fill(_ out: UnsafeMutablePointer<UInt8>, count: Int, message: UnsafeMutablePointer<CChar>) -> Int32 {
        var out = out, n = count
        while n > 0 {
            switch phase {
            case .prefix:
                let k = min(n, prefix.count - offset)
                out.update(from: prefix.baseAddress! + offset, count: k)
                out += k; n -= k; offset += k
                if offset == prefix.count, let e = start(segment: 0) { return fail(e, message) }
            case .header:
                let k = min(n, 8 - offset)
                out.update(from: small + offset, count: k)
                out += k; n -= k; offset += k
                if offset == 8 {
                    phase = .payload; offset = 0
                    if segments[segment].payloadLength == 0, let e = finishPayload() { return fail(e, message) }
                }
            case .payload:
                let seg = segments[segment]
                let k = min(n, seg.payloadLength - offset)
                let at = seg.chunkOffset + (seg.isFrameData ? 12 : 8) + offset
                let got: Int
                do { got = try source.read(at: at, into: UnsafeMutableRawBufferPointer(start: out, count: k)) } catch {
                    return fail(error.description, message)
                }
                guard got == k else { return fail("file ends inside a data chunk", message) }
                crc = animplay_crc32_update(crc, out, k)
                out += k; n -= k; offset += k
                if offset == seg.payloadLength, let e = finishPayload() { return fail(e, message) }
            case .trailer:
                let k = min(n, 4 - offset)
                out.update(repeating: 0, count: k)
                out += k; n -= k; offset += k
                if offset == 4, let e = start(segment: segment + 1) { return fail(e, message) }
            case .end:
                let k = min(n, Self.iend.count - offset)
                Self.iend.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + offset, count: k) }
                out += k; n -= k; offset += k
                if offset == Self.iend.count { phase = .done }
            case .done:
                return fail("read past IEND", message)
            }
        }
        return 0
    }

    /// Prepares the IDAT header for `segments[i]` (or IEND after the last) and starts the CRC
    /// of the original chunk. Returns an error message, or nil.
    private func start(segment i: Int) -> String? {
        segment = i; offset = 0
        guard i < segments.count else { phase = .end; return nil }
        let seg = segments[i]
        putBE32(small, UInt32(seg.payloadLength))
        small[4] = 0x49; small[5] = 0x44; small[6] = 0x41; small[7] = 0x54
        if seg.isFrameData {
            // The fdAT CRC covers the type and the sequence number too.
            guard let e = readSmall(at: seg.chunkOffset + 4, count: 8) else {
                crc = animplay_crc32(small + 8, 8)
                phase = .header
                return nil
            }
            return e
        }
        crc = idatTypeCRC
        phase = .header
        return nil
    }

    /// Compares the CRC stored after the current segment's data with the one computed.
    private func finishPayload() -> String? {
        let seg = segments[segment]
        // A chunk the file ends inside has no CRC: its data goes to libpng as it is, which
        // then decodes the rows it completes and stops at IEND ("not enough image data").
        if seg.isCut { phase = .trailer; offset = 0; return nil }
        if let e = readSmall(at: seg.chunkOffset + 8 + seg.length, count: 4) { return e }
        let stored = UInt32(small[8]) << 24 | UInt32(small[9]) << 16 | UInt32(small[10]) << 8 | UInt32(small[11])
        guard stored == crc else {
            return "\(seg.isFrameData ? "fdAT" : "IDAT") CRC mismatch (chunk at offset \(seg.chunkOffset))"
        }
        phase = .trailer; offset = 0
        return nil
    }

    private func readSmall(at position: Int, count: Int) -> String? {
        do {
            let got = try source.read(at: position, into: UnsafeMutableRawBufferPointer(start: small + 8, count: count))
            return got == count ? nil : "file ends inside a data chunk"
        } catch {
            return error.description
        }
    }

    private func fail(_ text: String, _ message: UnsafeMutablePointer<CChar>) -> Int32 {
        var i = 0
        for b in text.utf8 where i < 127 { message[i] = CChar(bitPattern: b); i += 1 }
        message[i] = 0
        return 1
    }
}

@inline(__always) private func putBE32(_ p: UnsafeMutablePointer<UInt8>, _ v: UInt32) {
    p[0] = UInt8(v >> 24); p[1] = UInt8((v >> 16) & 0xFF); p[2] = UInt8((v >> 8) & 0xFF); p[3] = UInt8(v & 0xFF)
}

private func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
}
