import CGIF

/// The bytes giflib reads, served from a `ByteSource` through one small buffer.
///
/// giflib has no seek: it pulls bytes through an input callback. Between records (where giflib
/// keeps no state tied to the stream position) the decoder moves `position` itself, which is how
/// it jumps to any frame's image descriptor without re-reading what lies before.
///
/// Past the end of the data it serves zero bytes and sets `pastEnd`. A zero byte ends every
/// sub-block chain, so a truncated frame looks like one whose data stops early: giflib reports
/// an LZW error where the pixels run out instead of failing in its own clean-up reads.
final class GIFInput {
    let source: ByteSource
    /// File offset of the next byte giflib reads.
    var position = 0
    /// Set when a read went beyond the end of the data (cleared by the caller).
    var pastEnd = false
    /// True while giflib decodes image data, which it reads as sub-blocks: a 1-byte size, then
    /// that many bytes in one read. A size that reaches past the end of the file is cut down to
    /// the bytes that exist, so giflib decodes all of them and then stops at the (zero) next
    /// size, instead of decoding the zero padding as LZW codes.
    var clampsSubBlocks = false { didSet { blockDataPending = false } }
    private var blockDataPending = false     // the next read is the data of the last size read
    /// The first I/O error; giflib only sees a short read.
    private(set) var ioError: AnimatedError?

    private static let bufferSize = 64 << 10
    private let buffer: UnsafeMutableRawBufferPointer
    private var bufferStart = 0      // file offset of buffer[0]
    private var bufferCount = 0      // valid bytes in buffer

    init(source: ByteSource) {
        self.source = source
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Copies `count` bytes at `position` into `dst` (zeros past the end; nil: passes over them)
    /// and advances.
    /// Returns `count`, or 0 after an I/O error.
    func read(into dst: UnsafeMutableRawPointer?, count: Int) -> Int {
        let n = fill(dst, count: count)
        if clampsSubBlocks && n > 0 {
            if blockDataPending {
                blockDataPending = false
            } else if n == 1, let dst {
                let size = Int(dst.load(as: UInt8.self))
                let remaining = max(source.count - position, 0)
                if size > remaining {
                    dst.storeBytes(of: UInt8(remaining), as: UInt8.self)
                    pastEnd = true
                }
                blockDataPending = min(size, remaining) > 0
            }
        }
        return n
    }

    /// Passes over the sub-blocks at `position` whose size byte and data are all in the buffer,
    /// as reading each size and then its data would: true when it passed a chain's terminator
    /// (a zero size; `position` just after it), false at a sub-block not wholly buffered
    /// (`position` at its size byte) or while sub-blocks are clamped.
    func skipBufferedSubBlocks() -> Bool {
        guard !clampsSubBlocks else { return false }
        var i = position &- bufferStart
        guard i >= 0 else { return false }
        let bytes = UnsafeRawPointer(buffer.baseAddress!), end = bufferCount
        while i < end {
            let size = Int(bytes.load(fromByteOffset: i, as: UInt8.self))
            if size == 0 { position = bufferStart &+ i &+ 1; return true }
            if i &+ 1 &+ size > end { break }
            i &+= 1 &+ size
        }
        position = bufferStart &+ i
        return false
    }

    /// `dst` nil: the bytes are passed over (read into the buffer, not copied out).
    private func fill(_ dst: UnsafeMutableRawPointer?, count: Int) -> Int {
        var done = 0
        while done < count {
            let inBuffer = position &- bufferStart
            if inBuffer >= 0 && inBuffer < bufferCount {
                let n = min(count &- done, bufferCount &- inBuffer)
                if let dst { (dst + done).copyMemory(from: buffer.baseAddress! + inBuffer, byteCount: n) }
                done &+= n
                position &+= n
                continue
            }
            if position >= source.count {
                if let dst { (dst + done).initializeMemory(as: UInt8.self, repeating: 0, count: count &- done) }
                position &+= count &- done
                pastEnd = true
                return count
            }
            do {
                bufferCount = try source.read(at: position, into: buffer)
                bufferStart = position
            } catch {
                ioError = ioError ?? error
                bufferCount = 0
                return 0
            }
            if bufferCount == 0 { bufferStart = source.count; position = max(position, source.count) }
        }
        return count
    }
}

/// One open giflib decoder (`GifFileType`) reading from a `GIFInput`.
///
/// Images are read with `DGifGetImageHeader`, never `DGifGetImageDesc`: the latter appends every
/// image to `SavedImages` (a realloc and a colour-map copy per frame), which would grow with the
/// frame count. So the handle holds only giflib's fixed LZW tables and the current colour maps.
final class GIFHandle {
    let input: GIFInput
    let gif: UnsafeMutablePointer<GifFileType>

    /// Opens a handle and lets giflib read the header (signature, logical screen descriptor,
    /// global colour table) from offset 0.
    init(input: GIFInput) throws(AnimatedError) {
        self.input = input
        input.position = 0
        input.pastEnd = false
        input.clampsSubBlocks = false
        var error: Int32 = 0
        let user = Unmanaged.passUnretained(input).toOpaque()
        let opened = DGifOpen(user, { gif, bytes, count in
            // Called by giflib with exact byte counts; the user pointer is the GIFInput, which
            // outlives the handle (the handle keeps it alive).
            guard let gif, let bytes, count > 0, let user = gif.pointee.UserData else { return 0 }
            let input = Unmanaged<GIFInput>.fromOpaque(user).takeUnretainedValue()
            return Int32(input.read(into: bytes, count: Int(count)))
        }, &error)
        if let e = input.ioError { if let opened { DGifCloseFile(opened, nil) }; throw e }
        guard let opened else { throw .invalid("GIF header: \(Self.message(error))") }
        if input.pastEnd {
            DGifCloseFile(opened, nil)
            throw .invalid("file ends inside the GIF header or global colour table")
        }
        gif = opened
    }

    deinit { DGifCloseFile(gif, nil) }

    /// The next record type, or nil when giflib rejects the byte (or the data ended).
    func recordType() -> GifRecordType? {
        var type = UNDEFINED_RECORD_TYPE
        return DGifGetRecordType(gif, &type) == GIF_OK ? type : nil
    }

    /// Reads an image descriptor and local colour table (after the ',' record byte) and sets
    /// up LZW decompression. False when giflib rejects it (e.g. LZW minimum code size > 8).
    func imageHeader() -> Bool {
        DGifGetImageHeader(gif) == GIF_OK
    }

    /// Skips sub-blocks up to and including the zero-length terminator (or to the end of the
    /// data); false on an I/O error. The bytes are read as giflib's `DGifGetCodeNext` loop read
    /// them (a size, then that many bytes, zeros past the end), but passed over in the input's
    /// buffer: giflib copied each block out through the read callback, most of the time of
    /// indexing a large file (the 10 MB benchmark GIF's 300 frames: 40,000 blocks).
    func skipSubBlocks() -> Bool {
        while true {
            // Whole sub-blocks already in the buffer are passed over there (two reads a 255-byte
            // sub-block cost the index of the 10 MB benchmark GIF about 1 ms of its 5); the
            // reads below take one that straddles the buffer's end or the end of the data.
            if input.skipBufferedSubBlocks() { return true }
            var size: UInt8 = 0
            guard input.read(into: &size, count: 1) == 1 else { return false }
            if size == 0 { return true }
            guard input.read(into: nil, count: Int(size)) == Int(size) else { return false }
            if input.pastEnd { return true }
        }
    }

    /// giflib's description of its last error.
    var lastError: String { Self.message(gif.pointee.Error) }

    static func message(_ code: Int32) -> String {
        switch code {
        case D_GIF_ERR_IMAGE_DEFECT: return "corrupt LZW data"
        case D_GIF_ERR_EOF_TOO_SOON: return "LZW data ends before the last pixel"
        default:
            if let s = GifErrorString(code) { return String(cString: s) }
            return "giflib error \(code)"
        }
    }
}
