import CGIF

/// Where one frame's image lives in the file and what the decoder needs to draw it.
struct GIFFrameEntry {
    /// File offset of the image descriptor's ',' byte.
    var offset: Int
    /// Transparent colour index from the frame's Graphic Control Extension, or -1.
    var transparent: Int16
    /// The image data's sub-block chain ended before the end of the file.
    var complete: Bool
    /// 0 when giflib accepts the image's LZW minimum code size (0...8: `GIFLZWDecoder` decodes
    /// 2...8, giflib the others); otherwise the code size giflib refused
    /// (9...11 go to `GIFWideCodeLZW`, larger ones cannot be decoded).
    var wideCodeSize: UInt8
}

/// The result of the header-only pass: every image descriptor, its Graphic Control Extension
/// and the loop count, without decompressing any image data.
struct GIFIndex {
    var frames: [FrameInfo] = []
    var entries: [GIFFrameEntry] = []
    var plays = 1
    var warnings: [String] = []
    /// The widest image (the decoder's row buffer).
    var maxImageWidth = 0

    /// The Graphic Control Extension fields that apply to the next image.
    private struct Control {
        var dispose = DisposeOp.none
        var delayMs = 0.0
        var transparent: Int16 = -1
    }

    /// Offset of the next record to read (the first after the header until `scan` ran).
    private(set) var resumeOffset = -1
    /// The trailer or damage was reached: nothing more to index.
    private(set) var done = false
    /// The Graphic Control Extension waiting for its image (kept between scans).
    private var control: Control?

    /// Reads records from just after the header to the trailer (or the first damage).
    init(handle: GIFHandle, maxFrames: Int) throws(AnimatedError) {
        try scan(handle: handle, maxFrames: maxFrames, final: true)
    }

    /// An index that `scan` extends as the data grows.
    init() {}

    /// Indexes the records from `resumeOffset` on. With `final` false the data may still grow:
    /// a record that runs past the end is not an error but the place to resume from once more
    /// bytes are in (nothing of it is kept). With `final` true the end of the data is the end
    /// of the file, and damage or truncation is reported in `warnings`.
    mutating func scan(handle: GIFHandle, maxFrames: Int, final: Bool) throws(AnimatedError) {
        guard !done else { return }
        let input = handle.input
        let gif = handle.gif
        let end = input.source.count
        if resumeOffset < 0 { resumeOffset = input.position }     // just after the header
        input.position = resumeOffset
        input.clampsSubBlocks = false

        records: while !done {
            let recordStart = input.position
            let before = (control, plays)
            // Not there yet: forget the partial record and resume from its start later.
            func waitForMore() -> Bool {
                guard !final && input.pastEnd else { return false }
                (control, plays) = before
                resumeOffset = recordStart
                return true
            }
            input.pastEnd = false
            guard let type = handle.recordType(), !input.pastEnd else {
                if let e = input.ioError { throw e }
                if waitForMore() { return }
                if recordStart >= end {
                    warnings.append("no trailer: file ends after \(after)")
                } else {
                    let byte = (try? input.source.bytes(at: recordStart, length: 1).first) ?? 0
                    warnings.append("unexpected byte 0x\(hex(byte)) at offset \(recordStart) after \(after); rest ignored")
                }
                break records
            }
            switch type {
            case TERMINATE_RECORD_TYPE:
                done = true

            case EXTENSION_RECORD_TYPE:
                var c = control
                let read = readExtension(handle, into: &c)
                control = c
                guard read, !input.pastEnd else {
                    if let e = input.ioError { throw e }
                    if waitForMore() { return }
                    warnings.append("truncated in an extension block after \(after)")
                    break records
                }

            case IMAGE_DESC_RECORD_TYPE:
                if frames.count >= maxFrames {
                    warnings.append("more than \(maxFrames) frames: the rest are ignored")
                    break records
                }
                let headerOK = handle.imageHeader()
                if let e = input.ioError { throw e }
                // giflib stops right after the code-size byte when it refuses it.
                let wideCodeSize = headerOK || input.pastEnd ? 0
                    : (try input.source.bytes(at: input.position - 1, length: 1).first ?? 0)
                let image = gif.pointee.Image
                let tableBytes = image.ColorMap.map { Int($0.pointee.ColorCount) * 3 } ?? 0
                // ',' + 9 descriptor bytes + local colour table must all be in the file.
                guard recordStart + 10 + tableBytes <= end else {
                    input.pastEnd = true
                    if waitForMore() { return }
                    warnings.append("truncated in the image descriptor after \(after); that image is dropped")
                    break records
                }
                var complete = false
                if !input.pastEnd {
                    complete = handle.skipSubBlocks() && !input.pastEnd
                    if let e = input.ioError { throw e }
                }
                if !complete && waitForMore() { return }
                let c = control ?? Control()
                control = nil
                let rect = FrameRect(x: Int(image.Left), y: Int(image.Top),
                                     width: Int(image.Width), height: Int(image.Height))
                // Pixels can stay unchanged where the index is transparent, and where the data
                // cannot be decoded at all. Not where a file ends inside the data: a frame that
                // covers the screen without a transparent index is decoded alone there too, the
                // rest transparent (`Compositor.draw`), as Chromium shows it (Wuffs' frame is
                // independent of the one before whatever its data holds).
                let hasAlpha = c.transparent >= 0 || wideCodeSize > 11
                frames.append(FrameInfo(rect: rect, delayMs: c.delayMs, dispose: c.dispose,
                                        blend: .over, hasAlpha: hasAlpha))
                entries.append(GIFFrameEntry(offset: recordStart, transparent: c.transparent,
                                             complete: complete, wideCodeSize: wideCodeSize))
                maxImageWidth = max(maxImageWidth, rect.width)
                if !complete {
                    warnings.append("truncated in the image data of frame \(frames.count - 1)")
                    break records
                }

            default:
                warnings.append("unexpected record at offset \(recordStart) after \(after); rest ignored")
                break records
            }
            resumeOffset = input.position
        }
        done = true
    }

    /// "frame N" for messages about where damage starts.
    private var after: String { frames.isEmpty ? "the header" : "frame \(frames.count - 1)" }

    /// Reads one extension (all its sub-blocks), keeping the Graphic Control Extension fields and
    /// NETSCAPE2.0/ANIMEXTS1.0 loop counts. False on a read error.
    private mutating func readExtension(_ handle: GIFHandle, into control: inout Control?) -> Bool {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(handle.gif, &code, &block) == GIF_OK else { return false }
        var isLoopApplication = false
        switch code {
        case GRAPHICS_EXT_FUNC_CODE:
            // [4, packed, delay lo, delay hi, transparent index]; shorter blocks are ignored.
            if let b = block, b[0] >= 4 {
                let packed = b[1]
                var c = Control()
                switch (packed >> 2) & 7 {
                case 2: c.dispose = .background
                case 3: c.dispose = .previous
                default: c.dispose = .none       // 0, 1 and the undefined 4...7
                }
                c.delayMs = Double(Int(b[2]) | Int(b[3]) << 8) * 10
                c.transparent = packed & 1 != 0 ? Int16(b[4]) : -1
                control = c
            }
        case PLAINTEXT_EXT_FUNC_CODE:
            // Plain text is not drawn, but a Graphic Control Extension before it belongs to it.
            control = nil
        case APPLICATION_EXT_FUNC_CODE:
            if let b = block, b[0] == 11 {
                let id = UnsafeBufferPointer(start: b + 1, count: 11)
                isLoopApplication = id.elementsEqual("NETSCAPE2.0".utf8) || id.elementsEqual("ANIMEXTS1.0".utf8)
            }
        default:
            break
        }
        while block != nil {
            guard DGifGetExtensionNext(handle.gif, &block) == GIF_OK else { return false }
            if handle.input.pastEnd { return true }
            // Looping sub-block: [3, 1, count lo, count hi]. The last one in the file counts.
            if isLoopApplication, let b = block, b[0] >= 3, b[1] == 1 {
                let loops = Int(b[2]) | Int(b[3]) << 8
                plays = loops == 0 ? 0 : loops + 1
            }
        }
        return true
    }

    private func hex(_ b: UInt8) -> String {
        let s = String(b, radix: 16, uppercase: true)
        return b < 16 ? "0" + s : s
    }
}
