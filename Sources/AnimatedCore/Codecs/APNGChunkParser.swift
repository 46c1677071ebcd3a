import CPNG

/// IHDR: what every frame's PNG stream repeats, with the frame's own size.
struct PNGHeader: Sendable {
    var width: Int
    var height: Int
    var bitDepth: UInt8
    var colorType: UInt8
    var interlace: UInt8

    var hasAlphaChannel: Bool { colorType & 4 != 0 }
}

/// A chunk of zlib data in the file (IDAT, or fdAT whose data starts with a sequence number).
struct PNGDataSegment: Sendable {
    /// File offset of the chunk's length field.
    var chunkOffset: Int
    /// The chunk's data length (for fdAT including the 4-byte sequence number).
    var length: Int
    var isFrameData: Bool
    /// The file ends inside this chunk: `length` counts the bytes that arrived, and there is no
    /// CRC to check.
    var isCut = false

    /// Bytes of zlib data in the chunk.
    var payloadLength: Int { isFrameData ? length - 4 : length }
}

/// One fcTL and where its pixels are.
struct APNGFrameRecord: Sendable {
    var sequence: UInt32
    var width: Int, height: Int, x: Int, y: Int
    var delayNumerator: UInt16, delayDenominator: UInt16
    var disposeOp: UInt8, blendOp: UInt8
    /// The fcTL came before the IDAT: the default image is this frame's data.
    var isDefaultImage: Bool
    /// fdAT chunks, in file order (empty for the default-image frame).
    var segments: [PNGDataSegment] = []

    var hasData: Bool { isDefaultImage || segments.contains { $0.payloadLength > 0 } }
}

/// The chunks of a PNG/APNG file that matter for showing it, and what is wrong with them.
struct APNGChunkIndex: Sendable {
    var header: PNGHeader
    /// PLTE data, kept for colour type 3 only.
    var palette: [UInt8]?
    /// tRNS data, kept only when valid for the colour type.
    var transparency: [UInt8]?
    /// The IDAT chunks (always at least one).
    var defaultImage: [PNGDataSegment] = []
    /// num_frames and num_plays of the acTL, when there is exactly one and it precedes IDAT.
    var animation: (frames: UInt32, plays: UInt32)?
    var frames: [APNGFrameRecord] = []
    /// Why the animation chunks do not form a valid APNG; empty when valid (or no animation).
    var animationProblems: [String] = []
    /// Problems that leave the image usable: ignored chunks, truncation.
    var warnings: [String] = []
    /// Any acTL, fcTL or fdAT seen.
    var hasAnimationChunks = false
    /// The file ends inside the last frame's data, which is kept (`parse`'s `keepPartialFrame`):
    /// it shows the rows that arrived.
    var lastFrameIsPartial = false

    var hasTransparency: Bool { header.hasAlphaChannel || transparency != nil }
}

/// Reads the chunk layout through a `ByteSource` (headers only: 8 to 12 bytes per data chunk,
/// whole control chunks) and checks it the way browsers and YYImage do. IDAT/fdAT CRCs are
/// checked later, when their data is read for decoding.
///
/// Throws when there is no usable default image (IHDR missing or bad, no IDAT, a broken
/// critical chunk); animation problems only land in `animationProblems`.
enum APNGChunkParser {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// `keepPartialFrame`: when the file ends inside a frame's data after its first frame, keep
    /// that frame with the data that arrived (a file that will not grow), as Chromium shows it.
    static func parse(_ source: ByteSource, limits: DecodeLimits, keepPartialFrame: Bool = false) throws(AnimatedError) -> APNGChunkIndex {
        guard try source.bytes(at: 0, length: 8) == signature else { throw .invalid("not a PNG signature") }
        let header = try readHeader(source, limits: limits)
        var state = ParseState(index: APNGChunkIndex(header: header), limits: limits)
        state.keepPartialFrame = keepPartialFrame
        try state.scan(source, from: 8 + 25)
        try state.finish()
        return state.index
    }

    /// IHDR, which must be the first chunk; checked against `limits` before anything else.
    static func readHeader(_ source: ByteSource, limits: DecodeLimits) throws(AnimatedError) -> PNGHeader {
        let c = try source.bytes(at: 8, length: 25)
        guard c.count == 25 else { throw .invalid("file ends inside IHDR") }
        guard c.be32(4) == ChunkType.IHDR else { throw .invalid("IHDR is not the first chunk") }
        guard c.be32(0) == 13 else { throw .invalid("IHDR has length \(c.be32(0))") }
        guard crcMatches(c, from: 4, count: 17) else { throw .invalid("IHDR CRC mismatch") }
        let w = Int(c.be32(8)), h = Int(c.be32(12))
        guard w > 0, h > 0, w <= 0x7FFF_FFFF, h <= 0x7FFF_FFFF else { throw .invalid("IHDR size \(w)x\(h)") }
        try limits.check(width: w, height: h)
        let depth = c[16], color = c[17]
        let depthOK: Bool
        switch color {
        case 0: depthOK = [1, 2, 4, 8, 16].contains(depth)
        case 3: depthOK = [1, 2, 4, 8].contains(depth)
        case 2, 4, 6: depthOK = depth == 8 || depth == 16
        default: throw .invalid("IHDR colour type \(color)")
        }
        guard depthOK else { throw .invalid("IHDR bit depth \(depth) with colour type \(color)") }
        guard c[18] == 0, c[19] == 0 else { throw .invalid("IHDR compression/filter method \(c[18])/\(c[19])") }
        guard c[20] <= 1 else { throw .invalid("IHDR interlace method \(c[20])") }
        return PNGHeader(width: w, height: h, bitDepth: depth, colorType: color, interlace: c[20])
    }

    /// True when the CRC stored after `count` bytes (type + data) starting at `from` matches.
    static func crcMatches(_ bytes: [UInt8], from: Int, count: Int) -> Bool {
        guard bytes.count >= from + count + 4 else { return false }
        let crc = bytes.withUnsafeBufferPointer { animplay_crc32($0.baseAddress! + from, count) }
        return crc == bytes.be32(from + count)
    }
}

enum ChunkType {
    static let IHDR: UInt32 = 0x4948_4452, PLTE: UInt32 = 0x504C_5445, IDAT: UInt32 = 0x4944_4154
    static let IEND: UInt32 = 0x4945_4E44, tRNS: UInt32 = 0x7452_4E53, acTL: UInt32 = 0x6163_544C
    static let fcTL: UInt32 = 0x6663_544C, fdAT: UInt32 = 0x6664_4154

    static func name(_ t: UInt32) -> String {
        let b = [UInt8(t >> 24), UInt8((t >> 16) & 0xFF), UInt8((t >> 8) & 0xFF), UInt8(t & 0xFF)]
        return b.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? String(decoding: b, as: UTF8.self) : "0x" + String(t, radix: 16)
    }
}

/// The single pass over the chunks after IHDR.
private struct ParseState {
    var index: APNGChunkIndex
    let limits: DecodeLimits
    var acTLCount = 0
    var seenIDAT = false
    var idatRunEnded = false          // a chunk other than IDAT came after the IDATs
    var nextSequence: UInt32 = 0
    var sequenceProblem: String?
    var truncated = false
    var cutChunk: UInt32?             // type of the chunk the file ends inside, if any
    var cutOffset = 0, cutLength = 0  // where that chunk starts, and the length it declares
    var keepPartialFrame = false
    var sourceCount = 0

    init(index: APNGChunkIndex, limits: DecodeLimits) {
        self.index = index; self.limits = limits
    }

    mutating func problem(_ s: String) { index.animationProblems.append(s) }

    mutating func scan(_ source: ByteSource, from start: Int) throws(AnimatedError) {
        var pos = start
        while true {
            let head = try source.bytes(at: pos, length: 12)
            guard head.count >= 8 else { truncated = true; break }
            let length = Int(head.be32(0)), type = head.be32(4)
            guard length <= 0x7FFF_FFFF else {
                index.warnings.append("chunk length \(length) out of range at offset \(pos); ignoring the rest of the file")
                truncated = true; cutChunk = type; break
            }
            let end = pos + 12 + length
            guard end <= source.count else {
                truncated = true; cutChunk = type; cutOffset = pos; cutLength = length; sourceCount = source.count
                break
            }
            if seenIDAT && type != ChunkType.IDAT { idatRunEnded = true }
            switch type {
            case ChunkType.IEND:
                return
            case ChunkType.IDAT:
                if idatRunEnded { throw .invalid("IDAT chunks are not consecutive") }
                seenIDAT = true
                index.defaultImage.append(PNGDataSegment(chunkOffset: pos, length: length, isFrameData: false))
            case ChunkType.fdAT:
                try frameData(head, at: pos, length: length)
            // Control chunks are read whole (after a length check: their sizes are fixed or small).
            case ChunkType.fcTL:
                index.hasAnimationChunks = true
                guard length == 26 else { problem("fcTL has length \(length)"); break }
                try frameControl(try source.bytes(at: pos, length: length + 12))
            case ChunkType.acTL:
                index.hasAnimationChunks = true
                guard length == 8 else { acTLCount += 1; problem("acTL has length \(length)"); break }
                animationControl(try source.bytes(at: pos, length: length + 12))
            case ChunkType.PLTE:
                guard index.header.colorType == 3 else { break }    // a suggested palette: not needed
                guard length <= 768 else { throw .invalid("PLTE has length \(length)") }
                try palette(try source.bytes(at: pos, length: length + 12))
            case ChunkType.tRNS:
                guard length <= 256 else { index.warnings.append("tRNS of length \(length) ignored"); break }
                transparency(try source.bytes(at: pos, length: length + 12))
            case ChunkType.IHDR:
                throw .invalid("more than one IHDR")
            default:
                // Bit 5 of the first letter clear = critical: a decoder that does not know it must stop.
                if type & 0x2000_0000 == 0 { throw .invalid("unknown critical chunk \(ChunkType.name(type))") }
            }
            pos = end
        }
    }

    mutating func animationControl(_ c: [UInt8]) {
        acTLCount += 1
        if acTLCount > 1 { problem("more than one acTL"); index.animation = nil; return }
        if seenIDAT { problem("acTL after IDAT"); return }
        guard APNGChunkParser.crcMatches(c, from: 4, count: 12) else { problem("acTL CRC mismatch"); return }
        index.animation = (c.be32(8), c.be32(12))
    }

    mutating func checkSequence(_ seq: UInt32, _ what: String) {
        if seq != nextSequence && sequenceProblem == nil {
            sequenceProblem = "\(what) sequence number \(seq) where \(nextSequence) was expected"
            problem(sequenceProblem!)
        }
        nextSequence = seq &+ 1
    }

    mutating func frameControl(_ c: [UInt8]) throws(AnimatedError) {
        guard APNGChunkParser.crcMatches(c, from: 4, count: 30) else { problem("fcTL CRC mismatch"); return }
        let seq = c.be32(8)
        checkSequence(seq, "fcTL")
        if let last = index.frames.last, !last.hasData {
            problem("frame \(index.frames.count - 1) has no image data")
        }
        guard index.frames.count < limits.maxFrames else {
            throw .limitExceeded("more than \(limits.maxFrames) frames")
        }
        index.frames.append(APNGFrameRecord(
            sequence: seq, width: Int(c.be32(12)), height: Int(c.be32(16)),
            x: Int(c.be32(20)), y: Int(c.be32(24)),
            delayNumerator: c.be16(28), delayDenominator: c.be16(30),
            disposeOp: c[32], blendOp: c[33], isDefaultImage: !seenIDAT))
    }

    mutating func frameData(_ head: [UInt8], at pos: Int, length: Int) throws(AnimatedError) {
        index.hasAnimationChunks = true
        guard length >= 4, head.count == 12 else { problem("fdAT has length \(length)"); return }
        checkSequence(head.be32(8), "fdAT")
        guard let last = index.frames.indices.last else { problem("fdAT before the first fcTL"); return }
        if index.frames[last].isDefaultImage {
            problem("fdAT for frame \(last), whose data is the IDAT"); return
        }
        index.frames[last].segments.append(PNGDataSegment(chunkOffset: pos, length: length, isFrameData: true))
    }

    mutating func palette(_ c: [UInt8]) throws(AnimatedError) {
        let n = Int(c.be32(0))
        guard !seenIDAT else { throw .invalid("PLTE after IDAT") }
        guard index.palette == nil else { throw .invalid("more than one PLTE") }
        guard n > 0, n % 3 == 0, n <= 3 << index.header.bitDepth else { throw .invalid("PLTE has length \(n)") }
        guard APNGChunkParser.crcMatches(c, from: 4, count: n + 4) else { throw .invalid("PLTE CRC mismatch") }
        index.palette = Array(c[8..<(8 + n)])
    }

    mutating func transparency(_ c: [UInt8]) {
        let n = Int(c.be32(0))
        guard !seenIDAT else { index.warnings.append("tRNS after IDAT ignored"); return }
        guard APNGChunkParser.crcMatches(c, from: 4, count: n + 4) else {
            index.warnings.append("tRNS CRC mismatch; chunk ignored"); return
        }
        guard index.transparency == nil else { index.warnings.append("second tRNS ignored"); return }
        let ok: Bool
        switch index.header.colorType {
        case 0: ok = n == 2
        case 2: ok = n == 6
        case 3: ok = index.palette != nil && n > 0 && n <= index.palette!.count / 3
        default: ok = false
        }
        guard ok else {
            index.warnings.append("tRNS of length \(n) is invalid for colour type \(index.header.colorType); ignored"); return
        }
        index.transparency = Array(c[8..<(8 + n)])
    }

    /// Checks what can only be checked once every chunk has been seen.
    mutating func finish() throws(AnimatedError) {
        let h = index.header
        if truncated && !seenIDAT { throw .invalid("file ends before the image data") }
        if truncated && cutChunk == ChunkType.IDAT { throw .invalid("file ends inside the image data") }
        guard seenIDAT else { throw .invalid("no IDAT chunk") }
        if h.colorType == 3 && index.palette == nil { throw .invalid("palette image without PLTE") }
        guard index.hasAnimationChunks else {
            if truncated { index.warnings.append("file ends without IEND") }
            return
        }
        guard let animation = index.animation else {
            if acTLCount == 0 { problem("fcTL/fdAT chunks without acTL") }
            return
        }
        let declared = Int(animation.frames)
        if truncated {
            // The frame the file ends in shows the rows that arrived, as in Chromium (their
            // data up to the cut, with no CRC to check), when the file will not grow and the
            // frame is not the first; otherwise only the frames that arrived whole are kept.
            // (A cut inside the CRC leaves all the data: the CRC is not data.)
            let cutPayload = min(cutLength - 4, sourceCount - (cutOffset + 12))
            if keepPartialFrame, cutChunk == ChunkType.fdAT, cutPayload > 0, let last = index.frames.indices.last,
               last > 0, !index.frames[last].isDefaultImage {
                index.frames[last].segments.append(PNGDataSegment(chunkOffset: cutOffset, length: cutPayload + 4,
                                                                  isFrameData: true, isCut: true))
            }
            if let last = index.frames.last, !last.hasData
                || (cutChunk == ChunkType.fdAT && !last.isDefaultImage && !(keepPartialFrame && index.frames.count > 1)) {
                index.frames.removeLast()
            }
            // Ended inside its data, or between chunks (where more of its data may have followed).
            if keepPartialFrame, index.frames.count > 1, let last = index.frames.last, !last.isDefaultImage,
               cutChunk == nil || cutChunk == ChunkType.fdAT {
                index.lastFrameIsPartial = true
            }
            index.warnings.append("file is truncated: \(index.frames.count) of \(declared) frames"
                                  + (index.lastFrameIsPartial ? "; the last shows the rows that arrived" : ""))
        } else if let last = index.frames.last, !last.hasData {
            problem("frame \(index.frames.count - 1) has no image data")
        }
        if declared == 0 || declared > 0x7FFF_FFFF { problem("acTL num_frames \(declared) is invalid") }
        if animation.plays > 0x7FFF_FFFF { problem("acTL num_plays \(animation.plays) is invalid") }
        if !truncated && declared != index.frames.count {
            problem("acTL num_frames \(declared) but \(index.frames.count) fcTL")
        }
        if index.frames.isEmpty && declared != 0 && truncated { problem("no complete frame") }
        for (k, f) in index.frames.enumerated() {
            if f.width <= 0 || f.height <= 0 {
                problem("frame \(k) is empty (\(f.width)x\(f.height))")
            } else if f.x + f.width > h.width || f.y + f.height > h.height {
                problem("frame \(k) (\(f.width)x\(f.height)+\(f.x)+\(f.y)) lies outside the \(h.width)x\(h.height) canvas")
            }
            if f.disposeOp > 2 { problem("frame \(k) dispose_op \(f.disposeOp) is invalid") }
            if f.blendOp > 1 { problem("frame \(k) blend_op \(f.blendOp) is invalid") }
            if f.isDefaultImage && k > 0 { problem("two fcTL before IDAT") }
            if f.isDefaultImage && (f.x != 0 || f.y != 0 || f.width != h.width || f.height != h.height) {
                problem("frame \(k) is the default image but its fcTL is \(f.width)x\(f.height)+\(f.x)+\(f.y), not the IHDR's \(h.width)x\(h.height)")
            }
        }
    }
}

fileprivate extension Array where Element == UInt8 {
    @inline(__always) func be32(_ i: Int) -> UInt32 {
        UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8 | UInt32(self[i + 3])
    }
    @inline(__always) func be16(_ i: Int) -> UInt16 { UInt16(self[i]) << 8 | UInt16(self[i + 1]) }
}
