import CAVIF

/// AVIF stills and animated AVIF (image sequences, `avis`) through libavif (dav1d inside).
///
/// libavif decodes from memory: the file is read once and kept for the decoder's life. Every
/// AVIF frame is a whole picture (no rectangles, disposal or blending), so each frame is
/// converted from YUV straight into the canvas (`avifImageYUVToRGB`, straight alpha, libavif's
/// default chroma upsampling: libyuv's bilinear where it applies; samples of more than 8 bits cut
/// as Chromium cuts them, `AVIFHighDepth`). libavif finds a frame's nearest keyframe itself, so
/// frames can be asked for in any order.
///
/// The repetition count: libavif 0.11 (Debian 12) does not read it (`repetitionCount` came
/// with libavif 1.0, from the `elst` box), so `AVIFEditList` reads the edit list itself; a
/// sequence without one plays forever, as in Chromium. On a growing source (a pipe, a
/// download) it opens once the whole file is in.
///
/// A still larger than the limits (`options.scaleDownStills`) is decoded at full size by dav1d
/// (libavif 0.11 has no scaler in its API), then converted to RGBA a strip of rows at a time
/// into a box average (`BoxDownscaler`), so the full-size RGBA image is never held; what dav1d
/// holds (the YUV planes, 1.5 to 3 bytes a pixel at 8 bits, and the alpha plane; 2.5 times
/// that for a grid, whose cells libavif 0.11 decodes with a dav1d each and copies into a
/// full-size image: a 16384² grid of 4096² cells peaks at 923 MiB for 384 MiB of planes) must fit
/// `limits.maxDecodedBytes`. `info.scaledFrom` says so.
package final class AVIFDecoder: AnimationDecoder {
    package let info: AnimationInfo
    private let file: UnsafeMutableRawBufferPointer
    private let decoder: UnsafeMutablePointer<avifDecoder>
    /// The frame `decoder.image` holds (-1: none yet).
    private var current = -1
    /// A still over the limits is reduced by this whole factor; 1: full size.
    private let factor: Int
    /// A still's alpha plane is read as limited range (see `stretchAlpha`).
    private let stretchesAlpha: Bool
    /// The primary item is a grid (its planes are libavif's own copy, see `scaleFactor`).
    private let isGrid: Bool
    /// Whether the alpha plane of the frame `decoder.image` holds has been stretched already.
    private var alphaStretched = false
    /// A sequence whose colour Chromium 156 reads as limited range (no edit list: see `init`).
    private let colourAsLimited: Bool

    /// Rows converted to RGBA at once for a scaled still (even: 4:2:0 chroma rows stay whole).
    static let stripRows = 16
    /// The largest still decoded to be scaled down (libavif's own default limit, 16384²).
    static let scaledMaxPixels = 1 << 28

    package init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        if source.isGrowing { throw .invalid("waiting for the whole AVIF") }
        if let why = animplay_avif_load() { throw .unsupportedFormat(String(cString: why)) }
        guard let d = animplay_avifDecoderCreate() else { throw .system("libavif could not create a decoder") }
        decoder = d
        file = .allocate(byteCount: max(source.count, 1), alignment: 16)
        do throws(AnimatedError) {
            guard try source.read(at: 0, into: UnsafeMutableRawBufferPointer(rebasing: file[0..<source.count])) == source.count else {
                throw AnimatedError.unreadable("file changed while reading")
            }
            d.pointee.maxThreads = 1
            d.pointee.ignoreExif = AVIF_TRUE
            d.pointee.ignoreXMP = AVIF_TRUE
            // Browsers read files that bend the spec (a missing pixi, a clap off by one).
            d.pointee.strictFlags = AVIF_STRICT_DISABLED.rawValue
            let limits = options.limits
            let mayScale = options.scaleDownStills && limits.maxPixels < Self.scaledMaxPixels
            d.pointee.imageSizeLimit = UInt32(clamping: mayScale ? Self.scaledMaxPixels : limits.maxPixels)
            d.pointee.imageDimensionLimit = UInt32(clamping: mayScale ? max(limits.maxDimension, 65535) : limits.maxDimension)
            d.pointee.imageCountLimit = UInt32(clamping: limits.maxFrames)
            try Self.check(animplay_avifDecoderSetIOMemory(d, file.baseAddress!.assumingMemoryBound(to: UInt8.self), source.count))
            try Self.check(animplay_avifDecoderParse(d))
            let image = d.pointee.image.pointee
            let fullWidth = Int(image.width), fullHeight = Int(image.height)
            let count = Int(d.pointee.imageCount)
            guard count >= 1 else { throw AnimatedError.invalid("no images") }
            let bytes = UnsafeRawBufferPointer(rebasing: file[0..<source.count])
            isGrid = count == 1 && AVIFBoxes.primaryIsGrid(bytes)
            factor = try Self.scaleFactor(width: fullWidth, height: fullHeight, frames: count, image: image,
                                          alpha: d.pointee.alphaPresent != AVIF_FALSE,
                                          copies: isGrid ? 2.5 : 1, options: options)
            let width = (fullWidth + factor - 1) / factor, height = (fullHeight + factor - 1) / factor
            guard count <= limits.maxFrames else {
                throw AnimatedError.limitExceeded("\(count) frames exceed the limit of \(limits.maxFrames)")
            }
            let whole = FrameRect(x: 0, y: 0, width: width, height: height)
            let alpha = d.pointee.alphaPresent != AVIF_FALSE
            stretchesAlpha = alpha && count == 1
            // The repetition count from the colour track's edit list (libavif 0.11 does not read
            // it). Chromium 156 shows a sequence without an edit list (what avifenc 0.11 writes)
            // as if its colour were limited range, whatever its `colr` box and AV1 sequence
            // header say; with an edit list (libavif 1.x files), as they say. Measured on every
            // sequence we have (README), not explained: the same is done here so they match.
            let edits = count > 1 ? AVIFEditList.read(bytes) : nil
            colourAsLimited = edits.map { !$0.present } ?? false
            var frames: [FrameInfo] = []
            frames.reserveCapacity(count)
            for i in 0..<count {
                var timing = avifImageTiming()
                var ms = 0.0
                if count > 1, animplay_avifDecoderNthImageTiming(d, UInt32(i), &timing) == AVIF_RESULT_OK, timing.timescale > 0 {
                    ms = Double(timing.durationInTimescales) * 1000 / Double(timing.timescale)
                }
                frames.append(FrameInfo(rect: whole, delayMs: ms, dispose: .none, blend: .source, hasAlpha: alpha))
            }
            var warnings: [String] = []
            if image.depth > 8 { warnings.append("\(image.depth)-bit samples are shown at 8 bits") }
            var info = AnimationInfo(format: .avif, width: width, height: height, frames: frames,
                                     plays: count > 1 ? edits?.plays ?? 0 : 1, warnings: warnings, timing: options.timing)
            if factor > 1 { info.scaledFrom = ImageSize(width: fullWidth, height: fullHeight) }
            self.info = info
        } catch {
            animplay_avifDecoderDestroy(d)
            file.deallocate()
            throw error
        }
    }

    /// 1 when the image fits the limits; else, for a still that may be scaled, the smallest whole
    /// factor that fits `scaledStillLimits`, provided dav1d's full-size planes fit the memory cap.
    private static func scaleFactor(width: Int, height: Int, frames: Int, image: avifImage, alpha: Bool,
                                    copies: Double, options: DecodeOptions) throws(AnimatedError) -> Int {
        let limits = options.limits
        do {
            try limits.check(width: width, height: height, workingCopies: 2)
            return 1
        } catch {
            guard error.kind == .limitExceeded, options.scaleDownStills, frames == 1,
                  let k = StillScale.boxFactor(width: width, height: height, limits: options.scaledStillLimits,
                                               workingCopies: 2) else { throw error }
            let chroma = image.yuvFormat == AVIF_PIXEL_FORMAT_YUV444 ? 2.0
                : image.yuvFormat == AVIF_PIXEL_FORMAT_YUV422 ? 1.0
                : image.yuvFormat == AVIF_PIXEL_FORMAT_YUV400 ? 0.0 : 0.5
            let sample = image.depth > 8 ? 2.0 : 1.0
            let planes = Int(Double(width) * Double(height) * (1 + chroma + (alpha ? 1 : 0)) * sample * copies)
            let shown = ((width + k - 1) / k) * ((height + k - 1) / k) * 4 * 2
            guard planes + shown <= limits.maxDecodedBytes else {
                throw .limitExceeded("canvas \(width)x\(height): even scaled down, dav1d needs \(DecodeLimits.size(planes)) for the full-size planes, limit \(DecodeLimits.size(limits.maxDecodedBytes))")
            }
            return k
        }
    }

    deinit {
        animplay_avifDecoderDestroy(decoder)
        file.deallocate()
    }

    /// Decodes frame `index` (libavif starts from its nearest keyframe) and converts it to RGBA
    /// straight onto the canvas.
    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        guard canvas.width == info.width, canvas.height == info.height else {
            throw .invalid("canvas is \(canvas.width)x\(canvas.height), the image \(info.width)x\(info.height)")
        }
        if current != index {
            let previous = current
            current = -1
            // The next frame continues the decoder's sequence; any other is sought from its keyframe.
            let rc = previous >= 0 && index == previous + 1 ? animplay_avifDecoderNextImage(decoder) : animplay_avifDecoderNthImage(decoder, UInt32(index))
            do { try Self.check(rc) } catch {
                // A failed frame leaves libavif's sequence wherever dav1d stopped, and a later
                // NthImage would go on from there: what it then decodes would depend on the
                // order frames were asked for. Start the next request from its keyframe instead,
                // so a damaged file shows the same frames however it is played (fuzzed).
                _ = animplay_avifDecoderReset(decoder)
                throw .invalid("frame \(index): \(error.message)")
            }
            current = index
            alphaStretched = false
        }
        if stretchesAlpha && !alphaStretched {
            // A single image's alpha plane is dav1d's picture unless libavif already stretched
            // it (its sequence header said limited range: libavif then owns a stretched copy);
            // a grid's planes are always libavif's, assembled from the cells unstretched.
            if isGrid || decoder.pointee.image.pointee.imageOwnsAlphaPlane == AVIF_FALSE {
                Self.stretchAlpha(decoder.pointee.image)
            }
            alphaStretched = true
        }
        if colourAsLimited { decoder.pointee.image.pointee.yuvRange = AVIF_RANGE_LIMITED }
        if factor > 1 { return try blendScaled(onto: canvas) }
        do {
            try AVIFHighDepth.toRGBA(decoder.pointee.image, pixels: canvas.pixels.baseAddress!, rowBytes: canvas.rowBytes)
        } catch {
            throw .invalid("frame \(index): \(error.message)")
        }
    }

    /// Converts the decoded still a strip of rows at a time (a view of libavif's planes) and
    /// box-averages the rows onto the smaller canvas.
    private func blendScaled(onto canvas: Canvas) throws(AnimatedError) {
        let image = decoder.pointee.image!
        let width = Int(image.pointee.width), height = Int(image.pointee.height)
        let box = BoxDownscaler(sourceWidth: width, sourceHeight: height, factor: factor, into: canvas)
        let strip = UnsafeMutablePointer<UInt8>.allocate(capacity: width * Self.stripRows * 4)
        defer { strip.deallocate() }
        var view = avifImage()
        var y = 0
        while y < height {
            let rows = min(Self.stripRows, height - y)
            var rect = avifCropRect(x: 0, y: UInt32(y), width: UInt32(width), height: UInt32(rows))
            do {
                try Self.check(animplay_avifImageSetViewRect(&view, image, &rect))
                try AVIFHighDepth.toRGBA(&view, pixels: strip, rowBytes: width * 4)
            } catch {
                throw .invalid("frame 0: \(error.message)")
            }
            for r in 0..<rows { box.add(row: y + r, strip + r * width * 4) }
            y += rows
        }
    }

    /// Chromium 156 (CrabbyAvif) shows the alpha plane of every AVIF still we have tried as if it
    /// were limited range, stretching 16...235 to 0...255, whatever the alpha item's AV1 sequence
    /// header says (avifenc 0.11 and libavif 1.x both write full range there); libavif 0.11
    /// stretches only where the header says limited. Measured, not understood (README): the
    /// same stretch, CrabbyAvif's `limited_to_full_y`, is applied here so stills match Chromium.
    /// The plane is dav1d's picture of an intra-only still, which nothing decodes from again.
    static func stretchAlpha(_ image: UnsafeMutablePointer<avifImage>) {
        guard let plane = image.pointee.alphaPlane else { return }
        let depth = Int(image.pointee.depth)
        let (lo, hi) = (16 << (depth - 8), 235 << (depth - 8))
        let full = (1 << depth) - 1
        let rowBytes = Int(image.pointee.alphaRowBytes)
        func stretch(_ v: Int) -> Int { min(max(((v - lo) * full + (hi - lo) / 2) / (hi - lo), 0), full) }
        for y in 0..<Int(image.pointee.height) {
            let row = plane + y * rowBytes
            if depth > 8 {
                let wide = UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt16.self)
                for x in 0..<Int(image.pointee.width) { wide[x] = UInt16(stretch(Int(wide[x]))) }
            } else {
                for x in 0..<Int(image.pointee.width) { row[x] = UInt8(stretch(Int(row[x]))) }
            }
        }
    }

    /// libavif's result as an error (none for OK); `AVIFHighDepth` uses it too.
    static func check(_ rc: avifResult) throws(AnimatedError) {
        guard rc != AVIF_RESULT_OK else { return }
        let text = String(cString: animplay_avifResultToString(rc))
        throw rc == AVIF_RESULT_NOT_IMPLEMENTED ? .unsupportedFormat(text) : .invalid(text)
    }
}

/// AVIF and animated AVIF (ISO-BMFF with an `avif` or `avis` brand) through libavif.
package struct AVIFCoder: ImageCoder {
    package init() {}
    package var name: String { "AVIF" }
    package func canDecode(head: [UInt8]) -> Bool {
        guard head.count >= 16, head[4..<8].elementsEqual(Array("ftyp".utf8)) else { return false }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        // The major brand, then the compatible brands (after the minor version) that the head holds.
        var offsets = [8]
        offsets += Swift.stride(from: 16, to: min(max(size, 16), head.count) - 3, by: 4)
        return offsets.contains { o in
            let brand = head[o..<(o + 4)]
            return brand.elementsEqual(Array("avif".utf8)) || brand.elementsEqual(Array("avis".utf8))
        }
    }
    package func open(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> any AnimationDecoder {
        try AVIFDecoder(source: source, options: options)
    }
}
