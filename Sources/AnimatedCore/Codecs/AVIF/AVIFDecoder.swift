import CAVIF

/// AVIF stills and animated AVIF (image sequences, `avis`) through libavif (dav1d inside).
///
/// libavif decodes from memory: the file is read once and kept for the decoder's life. Every
/// AVIF frame is a whole picture (no rectangles, disposal or blending), so each frame is
/// converted from YUV straight into the canvas (`avifImageYUVToRGB`, straight alpha, libavif's
/// default chroma upsampling: libyuv's bilinear where it applies). libavif finds a frame's
/// nearest keyframe itself, so frames can be asked for in any order.
///
/// The repetition count: libavif 0.11 (Debian 12) does not read it (`repetitionCount` came
/// with libavif 1.0, from the `elst` box), so an animation plays forever, which is what
/// Chromium shows for a sequence without an edit list. On a growing source (a pipe, a
/// download) it opens once the whole file is in.
package final class AVIFDecoder: AnimationDecoder {
    package let info: AnimationInfo
    private let file: UnsafeMutableRawBufferPointer
    private let decoder: UnsafeMutablePointer<avifDecoder>
    /// The frame `decoder.image` holds (-1: none yet).
    private var current = -1

    package init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        if source.isGrowing { throw .invalid("waiting for the whole AVIF") }
        guard let d = avifDecoderCreate() else { throw .system("libavif could not create a decoder") }
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
            d.pointee.imageSizeLimit = UInt32(clamping: limits.maxPixels)
            d.pointee.imageDimensionLimit = UInt32(clamping: limits.maxDimension)
            d.pointee.imageCountLimit = UInt32(clamping: limits.maxFrames)
            try Self.check(avifDecoderSetIOMemory(d, file.baseAddress!.assumingMemoryBound(to: UInt8.self), source.count))
            try Self.check(avifDecoderParse(d))
            let image = d.pointee.image.pointee
            let width = Int(image.width), height = Int(image.height)
            try limits.check(width: width, height: height, workingCopies: 2)
            let count = Int(d.pointee.imageCount)
            guard count >= 1 else { throw AnimatedError.invalid("no images") }
            guard count <= limits.maxFrames else {
                throw AnimatedError.limitExceeded("\(count) frames exceed the limit of \(limits.maxFrames)")
            }
            let whole = FrameRect(x: 0, y: 0, width: width, height: height)
            let alpha = d.pointee.alphaPresent != AVIF_FALSE
            var frames: [FrameInfo] = []
            frames.reserveCapacity(count)
            for i in 0..<count {
                var timing = avifImageTiming()
                var ms = 0.0
                if count > 1, avifDecoderNthImageTiming(d, UInt32(i), &timing) == AVIF_RESULT_OK, timing.timescale > 0 {
                    ms = Double(timing.durationInTimescales) * 1000 / Double(timing.timescale)
                }
                frames.append(FrameInfo(rect: whole, delayMs: ms, dispose: .none, blend: .source, hasAlpha: alpha))
            }
            var warnings: [String] = []
            if image.depth > 8 { warnings.append("\(image.depth)-bit samples are shown rounded to 8 bits") }
            info = AnimationInfo(format: .avif, width: width, height: height, frames: frames,
                                 plays: count > 1 ? 0 : 1, warnings: warnings, timing: options.timing)
        } catch {
            avifDecoderDestroy(d)
            file.deallocate()
            throw error
        }
    }

    deinit {
        avifDecoderDestroy(decoder)
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
            let rc = previous >= 0 && index == previous + 1 ? avifDecoderNextImage(decoder) : avifDecoderNthImage(decoder, UInt32(index))
            do { try Self.check(rc) } catch {
                // A failed frame leaves libavif's sequence wherever dav1d stopped, and a later
                // NthImage would go on from there: what it then decodes would depend on the
                // order frames were asked for. Start the next request from its keyframe instead,
                // so a damaged file shows the same frames however it is played (fuzzed).
                _ = avifDecoderReset(decoder)
                throw .invalid("frame \(index): \(error.message)")
            }
            current = index
        }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, decoder.pointee.image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.alphaPremultiplied = AVIF_FALSE
        rgb.pixels = canvas.pixels.baseAddress
        rgb.rowBytes = UInt32(canvas.rowBytes)
        do { try Self.check(avifImageYUVToRGB(decoder.pointee.image, &rgb)) } catch {
            throw .invalid("frame \(index): \(error.message)")
        }
    }

    private static func check(_ rc: avifResult) throws(AnimatedError) {
        guard rc != AVIF_RESULT_OK else { return }
        let text = String(cString: avifResultToString(rc))
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
