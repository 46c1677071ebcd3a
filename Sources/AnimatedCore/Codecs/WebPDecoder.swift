import CWebP

/// WebP codec (still and animated; VP8, VP8L, VP8X with ALPH) on libwebpdemux + libwebp.
///
/// The demuxer needs the whole file in memory: it is read once and kept for the decoder's life,
/// and each frame's bitstream is a slice of it. Frame rectangles always lie inside the canvas
/// (the demuxer rejects files where they do not), which lets opaque or no-blend frames decode
/// straight into the canvas.
///
/// On a growing source (a pipe, a download) `init` indexes the complete frames so far and
/// `refresh()` indexes the file again as it grows (geometrically, so the copies add up to a few
/// times the file), keeping `info` provisional until the data ends.
///
/// A still larger than the limits (a whole file, `options.scaleDownStills`) is decoded straight
/// to a size reduced by a whole factor with libwebp's own rescaler (`use_scaling`: an area
/// average in gamma space, rows rescaled as they are decoded); `info.scaledFrom` says so. A
/// lossy still without alpha then needs only a few rows of libwebp memory; a lossless bitstream
/// (VP8L keeps the whole ARGB image for its back-references) or an alpha plane (kept whole)
/// needs 4 or 2 bytes a pixel inside libwebp, which must fit `limits.maxDecodedBytes`.
/// Animations are never scaled: their frames blend onto each other at full size.
package final class WebPDecoder: AnimationDecoder {
    /// The animation as its chunks describe it.
    package private(set) var info: AnimationInfo

    /// The whole file; `bitstreams` point into it.
    private var file: UnsafeMutableRawBufferPointer
    /// Per frame, its VP8/VP8L bitstream (with any ALPH chunk before it).
    private var bitstreams: [WebPData]
    /// Per frame, whether libwebp's `WebPAnimDecoder` treats it as a key frame (`IsKeyFrame`):
    /// it then starts from a transparent canvas and its pixels are copied, not blended.
    private var copiedFrames: [Bool]
    /// Frames that are blended are decoded here first.
    private let scratch = FrameScratch()
    private let source: ByteSource
    private let options: DecodeOptions
    /// Growth (bytes) below which `refresh` waits for more; tests lower it.
    var refreshStep = 64 << 10
    private var config = WebPDecoderConfig()

    /// Demuxes the WebP in `source` (libwebpdemux): frames, delays, loop count.
    package init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        self.source = source
        self.options = options
        if let why = animplay_webp_load() { throw .unsupportedFormat(String(cString: why)) }
        // The canvas size sits in the first 30 bytes: refuse a pixel bomb before reading the file
        // (unless it is a still that can be decoded scaled down: see `scaledSize`).
        let head = try source.bytes(at: 0, length: 64)
        var overLimits: AnimatedError? = nil
        if let (w, h) = Self.canvasSize(head: head) {
            do { try options.limits.check(width: w, height: h) } catch {
                guard error.kind == .limitExceeded, options.scaleDownStills, !source.isGrowing,
                      !Self.isAnimated(head: head) else { throw error }
                overLimits = error
            }
        }

        guard animplay_WebPInitDecoderConfig(&config) != 0 else { throw .invalid("libwebp version mismatch") }
        config.output.colorspace = MODE_RGBA      // straight (non-premultiplied) alpha
        config.output.is_external_memory = 1
        // Otherwise the defaults, as dwebp: fancy upsampling, in-loop filtering, no threads.

        file = .allocate(byteCount: max(source.count, 1), alignment: 16)
        do throws(AnimatedError) {
            guard try source.read(at: 0, into: file) == source.count else {
                throw AnimatedError.unreadable("file changed while reading")
            }
            var data = WebPData(bytes: UnsafePointer(file.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                                size: source.count)
            // Partial parsing so that a truncated file still yields its complete frames.
            var state = WEBP_DEMUX_PARSING_HEADER
            let demuxer = animplay_WebPDemuxPartial(&data, &state)
            defer { animplay_WebPDemuxDelete(demuxer) }
            guard let dmux = demuxer, state != WEBP_DEMUX_PARSING_HEADER, state != WEBP_DEMUX_PARSE_ERROR else {
                throw AnimatedError.invalid(WebPContainerCheck.problem(
                    in: UnsafeRawBufferPointer(start: file.baseAddress, count: source.count)))
            }
            let width = Int(animplay_WebPDemuxGetI(dmux, WEBP_FF_CANVAS_WIDTH))
            let height = Int(animplay_WebPDemuxGetI(dmux, WEBP_FF_CANVAS_HEIGHT))
            let flags = animplay_WebPDemuxGetI(dmux, WEBP_FF_FORMAT_FLAGS)
            let animated = flags & UInt32(ANIMATION_FLAG.rawValue) != 0
            if let overLimits {
                guard !animated, state == WEBP_DEMUX_DONE else { throw overLimits }
            } else {
                try options.limits.check(width: width, height: height)
            }
            let plays = animated ? Int(animplay_WebPDemuxGetI(dmux, WEBP_FF_LOOP_COUNT)) : 1
            let stored = Int(animplay_WebPDemuxGetI(dmux, WEBP_FF_FRAME_COUNT))
            guard stored <= options.limits.maxFrames else {
                throw AnimatedError.limitExceeded("\(stored) frames exceed the limit of \(options.limits.maxFrames)")
            }

            // libwebpdemux finds frame n by walking its list from the first frame, so reading n
            // frames costs n²/2 steps (100 000 frames: about 10 s of CPU). Past this many frames,
            // only the first are shown, with a warning.
            let indexed = min(stored, Self.maxIndexedFrames)

            var frames: [FrameInfo] = []
            var bitstreams: [WebPData] = []
            frames.reserveCapacity(indexed)
            bitstreams.reserveCapacity(indexed)
            var iter = WebPIterator()
            for n in 1...max(indexed, 1) {
                // An incomplete frame can only be the last one of a truncated file.
                guard animplay_WebPDemuxGetFrame(dmux, Int32(n), &iter) != 0, iter.complete != 0 else { break }
                let rect = FrameRect(x: Int(iter.x_offset), y: Int(iter.y_offset),
                                     width: Int(iter.width), height: Int(iter.height))
                guard !rect.isEmpty, rect.x >= 0, rect.y >= 0,
                      rect.x + rect.width <= width, rect.y + rect.height <= height else {
                    throw AnimatedError.invalid("frame \(n - 1) (\(rect)) extends outside the \(width)x\(height) canvas")
                }
                frames.append(FrameInfo(
                    rect: rect, delayMs: Double(iter.duration),
                    dispose: iter.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND ? .background : .none,
                    blend: iter.blend_method == WEBP_MUX_NO_BLEND ? .source : .over,
                    hasAlpha: iter.has_alpha != 0))
                bitstreams.append(iter.fragment)
            }
            animplay_WebPDemuxReleaseIterator(&iter)

            var warnings: [String] = []
            if state != WEBP_DEMUX_DONE && source.isGrowing {
                guard !frames.isEmpty else { throw AnimatedError.invalid("no complete frame yet") }
            } else if state != WEBP_DEMUX_DONE {
                guard !frames.isEmpty else { throw AnimatedError.invalid("file truncated before the first complete frame") }
                warnings.append("file truncated (\(source.count) of \(Self.riffEnd(file)) bytes): showing \(frames.count) complete frame\(frames.count == 1 ? "" : "s")")
            }
            if indexed < stored {
                warnings.append("showing the first \(indexed) of \(stored) frames (more take libwebpdemux too long to index)")
            }
            guard !frames.isEmpty else { throw AnimatedError.invalid("no frames") }
            var scaled: ImageSize? = nil
            if let overLimits {
                let size = try Self.scaledSize(width: width, height: height, bitstream: bitstreams[0],
                                               options: options, refusal: overLimits)
                frames[0].rect = FrameRect(x: 0, y: 0, width: size.width, height: size.height)
                config.options.use_scaling = 1
                config.options.scaled_width = Int32(size.width)
                config.options.scaled_height = Int32(size.height)
                scaled = size
            }
            self.bitstreams = bitstreams
            let shown = scaled ?? ImageSize(width: width, height: height)
            copiedFrames = Self.libwebpKeyframes(frames, width: shown.width, height: shown.height)
            info = AnimationInfo(format: .webp, width: shown.width, height: shown.height, frames: frames,
                                 plays: plays, warnings: warnings, timing: options.timing)
            if scaled != nil { info.scaledFrom = ImageSize(width: width, height: height) }
            info.provisional = source.isGrowing
        } catch {
            file.deallocate()       // deinit does not run for a partly initialised object
            throw error
        }
    }

    deinit {
        file.deallocate()
    }

    /// Indexes the file again once it has grown by an eighth (or ended). Frames already
    /// indexed keep their place; the bitstreams move to the new copy of the file.
    package func refresh() throws(AnimatedError) -> Bool {
        guard info.provisional else { return false }
        source.refresh()
        if source.isGrowing && source.count - file.count < max(refreshStep, file.count / 8) {
            return false        // not enough new bytes to be worth a new copy yet
        }
        let next = try WebPDecoder(source: source, options: options)
        guard next.info.frameCount >= info.frameCount else {
            // Never fewer frames than were shown: end with those.
            info.provisional = next.info.provisional
            info.warnings += next.info.warnings
            return true
        }
        swap(&file, &next.file)
        swap(&bitstreams, &next.bitstreams)
        swap(&copiedFrames, &next.copiedFrames)
        let changed = next.info.frameCount != info.frameCount || !source.isGrowing
        info = next.info
        return changed
    }

    /// Decodes frame `index` and draws it onto `canvas` as browsers do (no disposal: see `Compositor`).
    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        let f = info.frames[index]
        let r = f.rect
        let fitsCanvas = canvas.width == info.width && canvas.height == info.height
        // A key frame in libwebp's sense finds a transparent canvas (the compositor's keyframes
        // and disposal guarantee the same), and its pixels are copied as decoded.
        let copies = f.blend == .source || !f.hasAlpha || copiedFrames[index]
        try scratch.draw(index, rect: r, onto: canvas, direct: fitsCanvas && copies,
                         decode: { (into, stride) throws(AnimatedError) in
                             try decode(index, into: into, stride: stride, size: stride * (r.height - 1) + r.width * 4)
                         },
                         blend: { buf in
                             if copies || !fitsCanvas {
                                 Blend.image(buf, width: r.width, height: r.height, srcStride: r.width * 4,
                                             at: r.x, r.y, onto: canvas, op: copies ? .source : .over)
                             } else {
                                 blendAsLibwebp(buf, frame: index, onto: canvas)
                             }
                         })
    }

    /// Blends the decoded frame `index` (rows packed) onto a canvas of the animation's size.
    private func blendAsLibwebp(_ buf: UnsafePointer<UInt8>, frame index: Int, onto canvas: Canvas) {
        let r = info.frames[index].rect
        // As libwebp (FindBlendRangeAtRow): where the previous frame was disposed to background
        // the pixels are copied (the canvas there is transparent); elsewhere they are blended.
        let prev = info.frames[index - 1]
        let cleared = prev.dispose == .background ? prev.rect : FrameRect(x: 0, y: 0, width: 0, height: 0)
        let base = canvas.pixels.baseAddress!
        for row in 0..<r.height {
            let y = r.y + row
            let src = buf + row * r.width * 4
            let dst = base + (y * canvas.width + r.x) * 4
            let inside = y >= cleared.y && y < cleared.y + cleared.height
            let c0 = inside ? min(max(cleared.x - r.x, 0), r.width) : r.width
            let c1 = inside ? min(max(cleared.x + cleared.width - r.x, c0), r.width) : r.width
            WebPBlend.row(src, onto: dst, count: c0)
            (dst + c0 * 4).update(from: src + c0 * 4, count: (c1 - c0) * 4)
            WebPBlend.row(src + c1 * 4, onto: dst + c1 * 4, count: r.width - c1)
        }
    }

    /// libwebp's `IsKeyFrame` over the whole animation: the first frame; a full-canvas frame
    /// without alpha or without blending; a frame after one disposed to background that was
    /// full-canvas or a key frame itself.
    static func libwebpKeyframes(_ frames: [FrameInfo], width: Int, height: Int) -> [Bool] {
        var out: [Bool] = []
        out.reserveCapacity(frames.count)
        for (k, f) in frames.enumerated() {
            let full = f.rect.covers(width: width, height: height)
            if k == 0 || ((!f.hasAlpha || f.blend == .source) && full) {
                out.append(true)
            } else {
                let p = frames[k - 1]
                out.append(p.dispose == .background && (p.rect.covers(width: width, height: height) || out[k - 1]))
            }
        }
        return out
    }

    /// Decodes frame `index` as RGBA into `width`×`height` pixels at `dst`, rows `stride` apart.
    private func decode(_ index: Int, into dst: UnsafeMutablePointer<UInt8>, stride: Int, size: Int) throws(AnimatedError) {
        let data = bitstreams[index]
        config.output.u.RGBA.rgba = dst
        config.output.u.RGBA.stride = Int32(stride)
        config.output.u.RGBA.size = size
        let status = animplay_WebPDecode(data.bytes, data.size, &config)
        guard status == VP8_STATUS_OK else {
            throw .invalid("frame \(index): \(Self.describe(status))")
        }
        let r = info.frames[index].rect
        // The demuxer takes frame sizes from the bitstream headers, so this only guards the canvas.
        guard Int(config.output.width) == r.width, Int(config.output.height) == r.height else {
            throw .invalid("frame \(index): bitstream is \(config.output.width)x\(config.output.height), frame is \(r.width)x\(r.height)")
        }
    }

    private static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: return "out of memory decoding the bitstream"
        case VP8_STATUS_INVALID_PARAM: return "bitstream does not fit the frame"
        case VP8_STATUS_BITSTREAM_ERROR: return "corrupt bitstream"
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported bitstream feature"
        case VP8_STATUS_NOT_ENOUGH_DATA, VP8_STATUS_SUSPENDED: return "truncated bitstream"
        default: return "bitstream decoding failed (libwebp status \(status.rawValue))"
        }
    }

    /// The size a still over the limits is decoded at: reduced by the smallest whole factor that
    /// fits `scaledStillLimits` (as a PNG is), provided what libwebp keeps whole while decoding
    /// (VP8L's ARGB image, an alpha plane) fits `maxDecodedBytes`; else `refusal`.
    static func scaledSize(width: Int, height: Int, bitstream: WebPData, options: DecodeOptions,
                           refusal: AnimatedError) throws(AnimatedError) -> ImageSize {
        var features = WebPBitstreamFeatures()
        guard animplay_WebPGetFeatures(bitstream.bytes, bitstream.size, &features) == VP8_STATUS_OK,
              Int(features.width) == width, Int(features.height) == height else { throw refusal }
        let lossless = features.format == 2
        let perPixel = lossless ? 4 : features.has_alpha != 0 ? 2 : 0
        let inside = width * height * perPixel
        guard let k = StillScale.boxFactor(width: width, height: height, limits: options.scaledStillLimits, workingCopies: 2) else {
            throw refusal
        }
        let size = ImageSize(width: (width + k - 1) / k, height: (height + k - 1) / k)
        guard inside + size.width * size.height * 4 * 2 <= options.limits.maxDecodedBytes else {
            let kind = lossless ? "a lossless WebP" : "a WebP with alpha"
            throw .limitExceeded("canvas \(width)x\(height): even scaled down, \(kind) needs \(DecodeLimits.size(inside)) inside libwebp, limit \(DecodeLimits.size(options.limits.maxDecodedBytes))")
        }
        return size
    }

    /// Whether the head is a VP8X header with the animation flag.
    static func isAnimated(head: [UInt8]) -> Bool {
        head.count >= 21 && head[12] == 0x56 && head[13] == 0x50 && head[14] == 0x38 && head[15] == 0x58
            && head[20] & 0x02 != 0
    }

    /// Canvas size from the file's first bytes (VP8X header, or a simple VP8/VP8L header).
    /// Frames indexed at most: 16384 take about 0.3 s (see `init`).
    static let maxIndexedFrames = 16384

    static func canvasSize(head: [UInt8]) -> (Int, Int)? {
        head.withUnsafeBufferPointer { h -> (Int, Int)? in
            if h.count >= 30, h[12] == 0x56, h[13] == 0x50, h[14] == 0x38, h[15] == 0x58 {   // VP8X
                let w = 1 + (Int(h[24]) | Int(h[25]) << 8 | Int(h[26]) << 16)
                let ht = 1 + (Int(h[27]) | Int(h[28]) << 8 | Int(h[29]) << 16)
                return (w, ht)
            }
            var w: Int32 = 0, ht: Int32 = 0
            guard animplay_WebPGetInfo(h.baseAddress, h.count, &w, &ht) != 0 else { return nil }
            return (Int(w), Int(ht))
        }
    }

    /// Where the RIFF chunk says the file ends.
    private static func riffEnd(_ file: UnsafeMutableRawBufferPointer) -> Int {
        guard file.count >= 8 else { return file.count }
        return 8 + (Int(file[4]) | Int(file[5]) << 8 | Int(file[6]) << 16 | Int(file[7]) << 24)
    }
}
