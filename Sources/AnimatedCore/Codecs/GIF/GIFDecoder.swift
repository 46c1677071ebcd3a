import CGIF

/// GIF codec, streamed: giflib reads the records (headers, colour tables, extensions) and
/// `GIFLZWDecoder` the image data (giflib's own LZW decoder was 90 % of the time; it still
/// decodes the minimum code sizes below 2). It holds one read buffer, the frame index, the
/// colour indices of the frame being decoded and one giflib handle; pixels go straight onto
/// the compositor's canvas.
///
/// `init` indexes the file without decompressing anything (headers only; image data is
/// skipped sub-block by sub-block). `blend` moves the handle's input to the frame's image
/// descriptor, so sequential playback reads on with one handle and random access costs nothing
/// extra; only after a decoding error is the handle reopened.
///
/// Policy (the corpus README): every image descriptor is a frame; the canvas is the logical
/// screen grown to hold the first frame (`canvasSize`), starts transparent and ignores the
/// background colour; later frames are clipped to it; transparent-index pixels and pixels the
/// data does not supply leave the canvas unchanged.
///
/// On a growing source (`ByteSource.isGrowing`: a pipe, a download) the index covers the frames
/// whose data is complete so far and `refresh()` extends it as bytes arrive; `info` is then
/// `provisional` until the data ends.
package final class GIFDecoder: AnimationDecoder {
    /// The animation as its blocks describe it.
    package private(set) var info: AnimationInfo
    let source: ByteSource
    private let input: GIFInput
    private(set) var entries: [GIFFrameEntry]
    private var handle: GIFHandle?
    private let palette: GIFPalette
    private var row: UnsafeMutablePointer<UInt8>
    private var rowCapacity: Int
    private let maxPixels: Int
    /// While the source grows: the index so far and the handle (on its own input) that extends it.
    private var growing: (index: GIFIndex, handle: GIFHandle, options: DecodeOptions)?
    private let lzw = GIFLZWDecoder()
    /// giflib handles opened (the index pass included): tests check that playback reuses one.
    private(set) var handlesOpened = 0
    /// Images giflib keeps in `SavedImages` (tests check it stays 0 however many frames).
    var giflibSavedImages: Int { Int(handle?.gif.pointee.ImageCount ?? 0) }

    /// Indexes the GIF in `source` (every frame's position, without decoding pixels).
    package init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        self.source = source
        // Signature and logical screen size first, so a huge screen fails before any allocation.
        let head = try source.bytes(at: 0, length: 13)
        guard head.count >= 6, head[0] == 0x47, head[1] == 0x49, head[2] == 0x46 else {
            throw .unsupportedFormat("not a GIF file")
        }
        guard head.count == 13 else { throw .invalid("file ends inside the GIF header") }
        let width = Int(head[6]) | Int(head[7]) << 8, height = Int(head[8]) | Int(head[9]) << 8
        // An empty screen is checked once the first frame has grown it (`canvasSize`).
        try options.limits.check(width: max(width, 1), height: max(height, 1))

        input = GIFInput(source: source)
        let grows = source.isGrowing
        // A growing source is indexed on a handle of its own, kept for `refresh`.
        let indexHandle = try GIFHandle(input: grows ? GIFInput(source: source) : input)
        handlesOpened = 1
        var index = GIFIndex()
        try index.scan(handle: indexHandle, maxFrames: options.limits.maxFrames, final: !grows)
        guard !index.frames.isEmpty else {
            if grows { throw .invalid("no complete frame yet") }
            throw .invalid(index.warnings.isEmpty ? "no frames" : "no frames (\(index.warnings[0]))")
        }
        let canvas = Self.canvasSize(screenWidth: width, screenHeight: height, firstFrame: index.frames[0].rect)
        try options.limits.check(width: canvas.width, height: canvas.height)
        entries = index.entries
        maxPixels = options.limits.maxPixels
        // Allocated only once nothing can throw: deinit does not run for a failed init.
        palette = GIFPalette()
        rowCapacity = max(index.maxImageWidth, 1)
        row = .allocate(capacity: rowCapacity)
        info = AnimationInfo(format: .gif, width: canvas.width, height: canvas.height, frames: index.frames,
                             plays: index.plays, warnings: index.warnings, timing: options.timing)
        info.provisional = grows
        if grows {
            growing = (index, indexHandle, options)
        } else {
            handle = indexHandle      // reused by the first blend
        }
    }

    /// The canvas of a GIF: its logical screen, grown (right and down) to hold the first frame
    /// when that frame reaches past it, as Chromium does (Wuffs, and Blink's GIF reader before
    /// it): some encoders write too small a screen, even 0×0, and browsers show the whole first
    /// frame of such files. Later frames are clipped. An empty first frame grows nothing.
    static func canvasSize(screenWidth: Int, screenHeight: Int, firstFrame r: FrameRect) -> (width: Int, height: Int) {
        guard !r.isEmpty else { return (screenWidth, screenHeight) }
        return (max(screenWidth, r.x + r.width), max(screenHeight, r.y + r.height))
    }

    /// Indexes the frames whose bytes arrived since the last call. True if `info` changed.
    package func refresh() throws(AnimatedError) -> Bool {
        guard var g = growing, source.refresh() else { return false }
        let final = !source.isGrowing
        growing = nil
        try g.index.scan(handle: g.handle, maxFrames: g.options.limits.maxFrames, final: final)
        if !final { growing = g }
        if g.index.maxImageWidth > rowCapacity {
            row.deallocate()
            rowCapacity = g.index.maxImageWidth
            row = .allocate(capacity: rowCapacity)
        }
        let changed = g.index.frames.count != entries.count || final || g.index.warnings.count != info.warnings.count
        entries = g.index.entries
        var next = AnimationInfo(format: .gif, width: info.width, height: info.height, frames: g.index.frames,
                                 plays: g.index.plays, warnings: g.index.warnings, timing: g.options.timing)
        next.provisional = !final
        info = next
        return changed
    }

    deinit {
        palette.deallocate()
        row.deallocate()
    }

    /// Decodes frame `index` and draws its opaque pixels onto `canvas` (no disposal: see `Compositor`).
    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        let entry = entries[index]
        let rect = info.frames[index].rect
        let visible = rect.clipped(toWidth: canvas.width, height: canvas.height)
        if visible.isEmpty { return }
        if entry.wideCodeSize > 11 {
            throw .invalid("frame \(index): LZW minimum code size \(entry.wideCodeSize) (at most 11)")
        }
        let rowsNeeded = visible.y + visible.height - rect.y      // image rows 0..<rowsNeeded
        guard rect.width <= maxPixels / rowsNeeded else {
            throw .invalid("frame \(index): image \(rect.width)x\(rect.height) exceeds the pixel limit")
        }
        let gif = try openImage(entry, frame: index)
        palette.load(gif.pointee.Image.ColorMap ?? gif.pointee.SColorMap)
        let target = RowTarget(canvas: canvas, rect: rect, visible: visible,
                               transparent: Int(entry.transparent), palette: palette.entries)
        let interlaced = gif.pointee.Image.Interlace
        let stored = GIFRaster.rowsToDecode(height: rect.height, visibleRows: rowsNeeded, interlaced: interlaced)
        if entry.wideCodeSize > 0 {
            return try blendWide(entry, frame: index, rows: stored, visibleRows: rowsNeeded,
                                 interlaced: interlaced, target: target)
        }

        let codeSize = lzwMinimumCodeSize()
        if (2...8).contains(codeSize) {
            return try blendIndices(frame: index, minimumCodeSize: codeSize, rows: stored, visibleRows: rowsNeeded,
                                    interlaced: interlaced, target: target)
        }

        // Code sizes 0 and 1 (which the format does not allow): giflib's decoder, as before.
        let width = Int32(rect.width)
        for k in 0..<stored {
            let y = GIFRaster.imageRow(stored: k, height: rect.height, interlaced: interlaced)
            guard DGifGetLine(gif, row, width) == GIF_OK else {
                if let e = input.ioError { handle = nil; throw e }
                let reason = input.pastEnd ? "image data truncated" : GIFHandle.message(gif.pointee.Error)
                handle = nil            // giflib's state after an error is not documented
                if y < rowsNeeded {
                    target.draw(row, y: y, available: try decodedPrefix(entry, frame: index, storedRow: k))
                }
                throw .invalid("frame \(index): \(reason)")
            }
            if y < rowsNeeded { target.draw(row, y: y, available: rect.width) }
        }
    }

    /// The LZW minimum code size of the image whose data starts at `input.position` (the byte
    /// just before it), or -1 if it cannot be read.
    private func lzwMinimumCodeSize() -> Int {
        let at = input.position, wasPastEnd = input.pastEnd, clamps = input.clampsSubBlocks
        defer { input.position = at; input.pastEnd = wasPastEnd; input.clampsSubBlocks = clamps }
        guard at > 0 else { return -1 }
        input.clampsSubBlocks = false
        input.position = at - 1
        var size: UInt8 = 0
        guard input.read(into: &size, count: 1) == 1, !input.pastEnd else { return -1 }
        return Int(size)
    }

    /// Stored rows decoded in one step of `blendIndices` before they are drawn (while their
    /// indices are still in the cache).
    private static let rowsPerStep = 16

    /// `blend` for minimum code sizes 2...8: `GIFLZWDecoder` makes the indices, drawn a few
    /// rows at a time; where it stops early, exactly the pixels it made are drawn.
    private func blendIndices(frame index: Int, minimumCodeSize: Int, rows: Int, visibleRows: Int,
                              interlaced: Bool, target: RowTarget) throws(AnimatedError) {
        let width = target.rect.width
        input.clampsSubBlocks = false
        lzw.begin(input: input, minimumCodeSize: minimumCodeSize, pixels: rows * width)
        var drawn = 0
        while drawn < rows {
            let made = lzw.decode(upTo: min(rows, drawn + Self.rowsPerStep) * width)
            while drawn < made / width {
                let y = GIFRaster.imageRow(stored: drawn, height: target.rect.height, interlaced: interlaced)
                if y < visibleRows { target.draw(lzw.indices + drawn * width, y: y, available: width) }
                drawn += 1
            }
            guard drawn < rows, let stop = lzw.stop else { continue }
            let y = GIFRaster.imageRow(stored: drawn, height: target.rect.height, interlaced: interlaced)
            if y < visibleRows { target.draw(lzw.indices + drawn * width, y: y, available: made - drawn * width) }
            switch stop {
            case .invalidCode: throw .invalid("frame \(index): invalid LZW code after \(made) pixels")
            case .endCode, .dataEnded: throw .invalid("frame \(index): LZW data ends before the last pixel")
            case .truncated: throw .invalid("frame \(index): image data truncated")
            case .readFailed: throw input.ioError ?? .invalid("frame \(index): image data truncated")
            }
        }
    }

    /// Where decoded rows go: the frame's visible part of the canvas.
    private struct RowTarget {
        let base: UnsafeMutableRawPointer
        let canvasWidth: Int
        let rect: FrameRect
        let skip: Int           // image columns before the first visible one
        let count: Int          // visible columns
        let transparent: Int
        let palette: UnsafePointer<UInt32>

        init(canvas: Canvas, rect: FrameRect, visible: FrameRect, transparent: Int, palette: UnsafePointer<UInt32>) {
            base = UnsafeMutableRawPointer(canvas.pixels.baseAddress!)
            canvasWidth = canvas.width
            self.rect = rect
            skip = visible.x - rect.x
            count = visible.width
            self.transparent = transparent
            self.palette = palette
        }

        /// Draws image row `y` from `src`, of which only the first `available` indices decoded.
        @inline(__always)
        func draw(_ src: UnsafePointer<UInt8>, y: Int, available: Int) {
            let n = min(count, available - skip)
            guard n > 0 else { return }
            let d = base + ((rect.y + y) * canvasWidth + rect.x + skip) * 4
            GIFRaster.drawRow(src + skip, count: n, onto: d, palette: palette, transparent: transparent)
        }

        func draw(_ src: UnsafePointer<UInt16>, y: Int, available: Int) {
            let n = min(count, available - skip)
            guard n > 0 else { return }
            let d = base + ((rect.y + y) * canvasWidth + rect.x + skip) * 4
            GIFRaster.drawWideRow(src + skip, count: n, onto: d, palette: palette, transparent: transparent)
        }
    }

    /// `blend` for the minimum code sizes giflib refuses (the handle's input is just after the
    /// code-size byte).
    private func blendWide(_ entry: GIFFrameEntry, frame index: Int, rows: Int, visibleRows: Int,
                           interlaced: Bool, target: RowTarget) throws(AnimatedError) {
        let width = target.rect.width
        let lzw = GIFWideCodeLZW(input: input, minimumCodeSize: Int(entry.wideCodeSize))
        let wideRow = UnsafeMutablePointer<UInt16>.allocate(capacity: max(width, 1))
        defer { wideRow.deallocate() }
        for k in 0..<rows {
            let y = GIFRaster.imageRow(stored: k, height: target.rect.height, interlaced: interlaced)
            let got = lzw.read(into: wideRow, count: width)
            if y < visibleRows { target.draw(wideRow, y: y, available: got) }
            if got < width {
                if let e = input.ioError { handle = nil; throw e }
                throw .invalid("frame \(index): \(lzw.failureMessage)")
            }
        }
    }

    /// Points the handle (opened if needed) at frame `index`'s image descriptor and reads it, so
    /// the next `DGifGetLine` returns the frame's first row (or, for a code size giflib refuses,
    /// so that the input is at the first data sub-block).
    private func openImage(_ entry: GIFFrameEntry, frame index: Int) throws(AnimatedError) -> UnsafeMutablePointer<GifFileType> {
        let h: GIFHandle
        if let handle { h = handle } else {
            h = try GIFHandle(input: input)
            handlesOpened += 1
            handle = h
        }
        input.position = entry.offset
        input.pastEnd = false
        input.clampsSubBlocks = false
        guard h.recordType() == IMAGE_DESC_RECORD_TYPE, h.imageHeader() || entry.wideCodeSize > 0 else {
            handle = nil
            if let e = input.ioError { throw e }
            throw .invalid("frame \(index): cannot read the image descriptor")
        }
        input.clampsSubBlocks = entry.wideCodeSize == 0
        return h.gif
    }

    /// After a failure in stored row `k`, decodes the frame again on a fresh handle up to that
    /// row and then one pixel at a time, so that exactly the pixels the data supplies are drawn.
    /// Leaves them in `row` and returns how many there are. Runs only for damaged frames.
    private func decodedPrefix(_ entry: GIFFrameEntry, frame index: Int, storedRow k: Int) throws(AnimatedError) -> Int {
        defer { handle = nil }
        let gif = try openImage(entry, frame: index)
        let width = Int(gif.pointee.Image.Width)
        for _ in 0..<k {
            guard DGifGetLine(gif, row, Int32(width)) == GIF_OK else { return 0 }
        }
        var got = 0
        while got < width, DGifGetLine(gif, row + got, 1) == GIF_OK { got += 1 }
        return got
    }
}
