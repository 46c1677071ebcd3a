import CWebP

/// Animated WebP through libwebp's WebPAnimEncoder, as gif2webp and img2webp use it: it finds
/// each frame's changed rectangle, tries blend and dispose choices and (with `mixed`) lossy
/// against lossless per frame. It merges a frame identical to the one before into that frame's
/// duration: the same pictures show for the same times.
///
/// WebPAnimEncoder keeps the previous canvases and the compressed frames; the file is assembled
/// and written out at `finish()`, so the compressed output (not the frames) is held in memory.
package final class WebPAnimationEncoder: AnimationEncoder {
    private let width: Int, height: Int
    private let sink: any EncoderSink
    private var encoder: OpaquePointer?
    private var config = WebPConfig()
    private var schedule = DelaySchedule.milliseconds
    private var frames = 0

    init(width: Int, height: Int, plays: Int, options: EncoderOptions, sink: any EncoderSink) throws(AnimatedError) {
        self.width = width; self.height = height; self.sink = sink
        if let why = animplay_webp_load() { throw .system(String(cString: why)) }
        var anim = WebPAnimEncoderOptions()
        guard animplay_WebPAnimEncoderOptionsInit(&anim) != 0, animplay_WebPConfigInit(&config) != 0 else {
            throw .system("libwebp: version mismatch")
        }
        // WebP's loop count is 16 bits: more plays than that are as good as forever, and are
        // written as the most it holds.
        anim.anim_params.loop_count = Int32(min(plays, 0xFFFF))
        anim.allow_mixed = options.mixed ? 1 : 0
        if let kmin = options.keyframeMin { anim.kmin = Int32(clamping: kmin) }
        if let kmax = options.keyframeMax { anim.kmax = Int32(clamping: kmax) }
        // A transparent background: pixels no frame covers are transparent, as in the source.
        anim.anim_params.bgcolor = 0
        config.lossless = options.lossless ? 1 : 0
        config.quality = Float(max(0, min(100, options.quality)))
        config.method = Int32(max(0, min(6, options.method)))
        // Lossless may change the colour of transparent pixels (invisible, smaller) unless told
        // to keep it (`exact`: frames decode byte for byte).
        config.exact = options.lossless && options.keepTransparentColor ? 1 : 0
        guard animplay_WebPValidateConfig(&config) != 0 else { throw .output("WebP: invalid encoder settings") }
        encoder = animplay_WebPAnimEncoderNew(Int32(width), Int32(height), &anim)
        guard encoder != nil else { throw .system("WebP: out of memory") }
    }

    deinit { if let encoder { animplay_WebPAnimEncoderDelete(encoder) } }

    package func add(_ canvas: Canvas, durationMs: Double) throws(AnimatedError) {
        precondition(canvas.width == width && canvas.height == height, "frame size differs from the encoder's")
        guard let encoder else { preconditionFailure("add after finish") }
        var picture = WebPPicture()
        guard animplay_WebPPictureInit(&picture) != 0 else { throw .system("libwebp: version mismatch") }
        picture.use_argb = 1
        picture.width = Int32(width); picture.height = Int32(height)
        defer { animplay_WebPPictureFree(&picture) }
        guard animplay_WebPPictureImportRGBA(&picture, canvas.pixels.baseAddress, Int32(width * 4)) != 0 else {
            throw .system("WebP: out of memory")
        }
        let timestamp = Int32(clamping: schedule.writtenUnits)
        guard animplay_WebPAnimEncoderAdd(encoder, &picture, timestamp, &config) != 0 else { throw failure(encoder) }
        _ = schedule.next(durationMs)
        frames += 1
    }

    package func finish() throws(AnimatedError) {
        guard let encoder else { preconditionFailure("finish twice") }
        defer { animplay_WebPAnimEncoderDelete(encoder); self.encoder = nil }
        guard animplay_WebPAnimEncoderAdd(encoder, nil, Int32(clamping: schedule.writtenUnits), nil) != 0 else { throw failure(encoder) }
        var data = WebPData()
        guard animplay_WebPAnimEncoderAssemble(encoder, &data) != 0 else { throw failure(encoder) }
        defer { animplay_WebPDataClear(&data) }
        try sink.write(UnsafeRawBufferPointer(start: data.bytes, count: data.size))
    }

    private func failure(_ encoder: OpaquePointer) -> AnimatedError {
        let message = animplay_WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? ""
        return .output("WebP encoder: \(message.isEmpty ? "failed" : message)")
    }
}
