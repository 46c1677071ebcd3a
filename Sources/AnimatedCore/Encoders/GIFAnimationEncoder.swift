import CGIF
import CImageQuant
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// GIF through giflib (container, LZW), with libimagequant for frames of more than 256 colours.
///
/// Every frame is drawn onto what the previous ones left (dispose "none"), cropped to the
/// rectangle that changed, unchanged pixels written as the transparent index (long runs of one
/// index compress well). A pixel that turns transparent cannot be drawn: the frame before is
/// then disposed to background over a rectangle that covers every such pixel, so one frame waits
/// (`pending`) until the next shows what it needs.
///
/// Exact where GIF can be: a frame whose changed pixels have at most 255 colours (256 when no
/// pixel is left unchanged) is written with those colours. Otherwise libimagequant makes the
/// palette (optionally dithered), and later frames are compared with what was actually shown,
/// so the error does not accumulate; a pixel within `tolerance` of what is shown is left alone.
///
/// One palette for many frames: quantising every frame on its own is what made this encoder
/// slower than ImageMagick. Frames given to `addSample` beforehand (the transcoder samples a few
/// across the animation) fill a libimagequant histogram, quantised once into the shared
/// palette (with a fixed transparent entry for unchanged pixels); without samples the first frame
/// that needs a palette is its histogram. Each frame of too many colours is then only remapped
/// onto it (libimagequant's dithering), and quantised on its own only when the remapped pixels
/// are off by more than `sharedLimit` (mean squared error per channel): a scene cut.
/// libimagequant refines the palette while remapping without dithering, so the palette of a
/// frame is read back after each remap, and the frame uses the global table only when it came
/// out the same.
/// GIF has no partial alpha: alpha below 128 is transparent, or everything is blended over
/// `EncoderOptions.background`. Delays: `DelaySchedule.gif`.
package final class GIFAnimationEncoder: AnimationEncoder {
    private let width: Int, height: Int, plays: Int
    private let options: EncoderOptions
    private let sink: any EncoderSink
    private var schedule = DelaySchedule.gif
    /// How far a pixel of a quantised frame may drift from the target before it is redrawn.
    private let tolerance: Int
    /// The tolerance in force: 0 while a frame is tried exactly.
    private var drift = 0
    /// What a decoder shows before the pending frame is drawn.
    private let shown: PixelPlane
    private let pendingTarget: PixelPlane
    private let incoming: PixelPlane
    private var hasPending = false
    private var pendingDuration = 0.0
    private let colors = ColorTable()
    /// The global colour table (the first frame's palette) and its transparent index.
    private let global = ColorTable()
    private var globalTransparent: Int?
    private var file: UnsafeMutablePointer<GifFileType>?
    private var writer: Writer
    private var indexes: [UInt8] = []
    private var scratch: [UInt32] = []
    private var finished = false
    /// libimagequant's settings (quality, 256 colours), made once.
    private let attr: OpaquePointer
    /// The colours of the sampled frames, until the shared palette is made from them.
    private var histogram: OpaquePointer?
    /// A sampled frame has more than 256 colours: the shared palette is made from the samples.
    private var samplesNeedPalette = false
    /// Every colour of the sampled frames while they fit one table: then the global table.
    private let sampledColors = ColorTable()
    private var sampledColorsFit = true
    /// The shared palette (a libimagequant result) once a frame needed it.
    private var shared: OpaquePointer?
    /// Mean squared error per channel above which a frame remapped onto the shared palette gets
    /// its own instead.
    private let sharedLimit: Double

    /// giflib's output callback target (giflib holds it as a raw pointer in `UserData`).
    private final class Writer {
        let sink: any EncoderSink
        var error: AnimatedError?
        init(sink: any EncoderSink) { self.sink = sink }
    }

    init(width: Int, height: Int, plays: Int, options: EncoderOptions, sink: any EncoderSink) throws(AnimatedError) {
        self.width = width; self.height = height; self.plays = plays; self.options = options; self.sink = sink
        let q = max(0, min(100, options.quality))
        tolerance = q >= 100 ? 0 : Int((100 - q) / 8)
        shown = PixelPlane(width: width, height: height)
        pendingTarget = PixelPlane(width: width, height: height)
        incoming = PixelPlane(width: width, height: height)
        writer = Writer(sink: sink)
        if let why = animplay_liq_load() { throw .system(String(cString: why)) }
        guard let attr = animplay_liq_attr_create() else { throw .system("libimagequant: out of memory") }
        self.attr = attr
        _ = animplay_liq_set_quality(attr, 0, Int32(q))
        _ = animplay_liq_set_max_colors(attr, 256)
        // Speed 7 of 1-10 (default 4): measured on mandelbrot, where most frames get their own
        // palette at quality 60, a quarter less CPU for the same SSIM and 2 % more bytes; 10
        // costs SSIM and, on testsrc2, 45 % more bytes.
        _ = animplay_liq_set_speed(attr, 7)
        sharedLimit = Self.remapLimit(quality: q)
    }

    deinit {
        if let file { _ = EGifCloseFile(file, nil) }
        if let histogram { animplay_liq_histogram_destroy(histogram) }
        if let shared { animplay_liq_result_destroy(shared) }
        animplay_liq_attr_destroy(attr)
    }

    /// How far (mean squared error per channel, 0-255 scale) remapped pixels may be from the
    /// frame: 12 times libimagequant's own target (its `quality_to_mse`) for the quality, or for
    /// 90 below that. Measured on ffmpeg's testsrc2 and mandelbrot at quality 90: dithered remaps
    /// onto a palette of sampled frames come out at 10-30 (a frame's own palette: 6-12), SSIM far
    /// above ffmpeg's single palette. Lower qualities make files smaller by leaving more pixels
    /// unchanged; letting the shared palette drift further too cost more SSIM than size
    /// (mandelbrot at quality 60: SSIM 0.9863 instead of 0.9926 for 1 % less).
    static func remapLimit(quality q: Double) -> Double {
        if q >= 100 { return 0 }
        let t = max(q, 90)
        let mse = max(0, 0.016 / (0.001 + t) - 0.001) + 2.5 / pow(210 + t, 1.2) * (100.1 - t) / 100
        return max(4, mse * 65536 / 6 * 12)
    }

    package var wantedSamples: Int { 32 }

    package func addSample(_ canvas: Canvas) throws(AnimatedError) {
        precondition(!finished && !hasPending && file == nil, "samples come before the frames")
        precondition(canvas.width == width && canvas.height == height, "frame size differs from the encoder's")
        incoming.copy(from: canvas)
        flattenAlpha(incoming)
        let p = incoming.base
        colors.removeAll()
        for i in 0..<(width * height) where p[i] != 0 && !colors.insert(p[i]) { samplesNeedPalette = true; break }
        if samplesNeedPalette { sampledColorsFit = false }
        if sampledColorsFit {
            for c in colors.colors where !sampledColors.insert(c) { sampledColorsFit = false; break }
        }
        try addToHistogram(p, width: width, height: height)
    }

    /// Adds pixels (straight RGBA, 0 = transparent) to the histogram the shared palette is made from.
    private func addToHistogram(_ pixels: UnsafeMutablePointer<UInt32>, width w: Int, height h: Int) throws(AnimatedError) {
        animplay_liq_one_thread()
        if histogram == nil {
            guard let hist = animplay_liq_histogram_create(attr) else { throw .system("libimagequant: out of memory") }
            histogram = hist
            // Unchanged pixels are transparent: the shared palette always has a transparent entry.
            _ = animplay_liq_histogram_add_fixed_color(hist, liq_color(r: 0, g: 0, b: 0, a: 0), 0.45455)
        }
        guard let image = animplay_liq_image_create_rgba(attr, pixels, Int32(w), Int32(h), 0) else {
            throw .system("libimagequant: out of memory")
        }
        defer { animplay_liq_image_destroy(image) }
        guard animplay_liq_histogram_add_image(histogram!, attr, image) == LIQ_OK else {
            throw .system("libimagequant could not take a frame's colours")
        }
    }

    package func add(_ canvas: Canvas, durationMs: Double) throws(AnimatedError) {
        precondition(!finished, "add after finish")
        precondition(canvas.width == width && canvas.height == height, "frame size differs from the encoder's")
        incoming.copy(from: canvas)
        flattenAlpha(incoming)
        if hasPending {
            // Pixels the next frame makes transparent must be cleared by this frame's disposal.
            let clear = becomesTransparent(from: pendingTarget, to: incoming)
            try writePending(covering: clear)
        }
        pendingTarget.copy(from: incoming)
        pendingDuration = durationMs
        hasPending = true
    }

    package func finish() throws(AnimatedError) {
        precondition(!finished, "finish twice")
        finished = true
        guard hasPending else { throw .invalid("no frames to write") }
        try writePending(covering: nil)
        var error: Int32 = 0
        let f = file!
        file = nil
        if EGifCloseFile(f, &error) == GIF_ERROR { throw failure(error) }
        if let e = writer.error { throw e }
    }

    /// GIF's 1-bit alpha: blend over the background, or threshold at 128.
    private func flattenAlpha(_ plane: PixelPlane) {
        let p = plane.base
        if let bg = options.backgroundRGB {
            let br = Int(bg >> 16), bgG = Int((bg >> 8) & 0xFF), bb = Int(bg & 0xFF)
            for i in 0..<(width * height) {
                let v = p[i], a = Int(v >> 24)
                if a == 255 { continue }
                let r = (Int(v & 0xFF) * a + br * (255 - a) + 127) / 255
                let g = (Int((v >> 8) & 0xFF) * a + bgG * (255 - a) + 127) / 255
                let b = (Int((v >> 16) & 0xFF) * a + bb * (255 - a) + 127) / 255
                p[i] = 0xFF00_0000 | UInt32(b) << 16 | UInt32(g) << 8 | UInt32(r)
            }
        } else {
            for i in 0..<(width * height) {
                let v = p[i]
                p[i] = v >> 24 < 128 ? 0 : v | 0xFF00_0000
            }
        }
    }

    /// The bounding box of pixels opaque in `a` and transparent in `b`.
    private func becomesTransparent(from a: PixelPlane, to b: PixelPlane) -> FrameRect? {
        var x0 = width, y0 = height, x1 = -1, y1 = -1
        let pa = a.base, pb = b.base
        for y in 0..<height {
            let ra = pa + y * width, rb = pb + y * width
            for x in 0..<width where rb[x] == 0 && ra[x] != 0 {
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            }
        }
        return x1 < 0 ? nil : FrameRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }

    @inline(__always)
    private func differs(_ s: UInt32, _ t: UInt32) -> Bool {
        if s == t || t == 0 { return false }         // transparent targets are left as they are
        if drift == 0 || s >> 24 != t >> 24 { return true }
        let dr = abs(Int(s & 0xFF) - Int(t & 0xFF))
        let dg = abs(Int((s >> 8) & 0xFF) - Int((t >> 8) & 0xFF))
        let db = abs(Int((s >> 16) & 0xFF) - Int((t >> 16) & 0xFF))
        return max(dr, dg, db) > drift
    }

    private func writePending(covering clear: FrameRect?) throws(AnimatedError) {
        let s = shown.base, t = pendingTarget.base
        drift = 0
        if file == nil, options.globalPalette, sampledColorsFit, sampledColors.count > 0 {
            // Frames of few colours (a GIF re-encoded): the samples' colours as the global
            // table, with a transparent entry if there is room, rather than the first frame's.
            var palette = sampledColors.colors
            if palette.count < 256 { globalTransparent = palette.count; palette.append(0) }
            try open(globalPalette: palette)
            global.assign(palette)
        }
        // The changed rectangle (plus the area to clear afterwards).
        var x0 = width, y0 = height, x1 = -1, y1 = -1
        for y in 0..<height {
            let rs = s + y * width, rt = t + y * width
            for x in 0..<width where differs(rs[x], rt[x]) {
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            }
        }
        if let c = clear {
            x0 = min(x0, c.x); y0 = min(y0, c.y); x1 = max(x1, c.x + c.width - 1); y1 = max(y1, c.y + c.height - 1)
        }
        if x1 < 0 { x0 = 0; y0 = 0; x1 = 0; y1 = 0 }   // nothing changed: one unchanged pixel
        let r = FrameRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
        let n = r.width * r.height
        if indexes.count < n { indexes = [UInt8](repeating: 0, count: n) }

        // The colours of the changed pixels, if they fit in a palette.
        colors.removeAll()
        var unchanged = false, fits = true
        for y in 0..<r.height where fits {
            let rs = s + (r.y + y) * width + r.x, rt = t + (r.y + y) * width + r.x
            for x in 0..<r.width {
                if differs(rs[x], rt[x]) {
                    if !colors.insert(rt[x]) { fits = false; break }
                } else {
                    unchanged = true
                }
            }
        }
        if fits && unchanged && colors.count == 256 { fits = false }
        // Too many colours with a transparent index: still exact if the whole rectangle, unchanged
        // pixels written with their colours, fits without one.
        var drawAll = false
        if !fits {
            colors.removeAll()
            var ok = true
            for y in 0..<r.height where ok {
                let rt = t + (r.y + y) * width + r.x
                for x in 0..<r.width where rt[x] == 0 || !colors.insert(rt[x]) { ok = false; break }
            }
            if ok { fits = true; drawAll = true; unchanged = false }
        }

        var palette: [UInt32]
        var transparent: Int?
        var useGlobal = false
        if fits {
            if file != nil, options.globalPalette, global.count > 0,
               !unchanged || globalTransparent != nil,
               colors.colors.allSatisfy({ global.index(of: $0) != nil }),
               Self.globalPays(pixels: n, globalColors: global.count, localColors: colors.count + (unchanged ? 1 : 0)) {
                useGlobal = true
                palette = global.colors
                transparent = unchanged ? globalTransparent : nil
            } else {
                palette = colors.colors
                if unchanged || file == nil && palette.count < 256 { transparent = palette.count; palette.append(0) }
            }
            let table = useGlobal ? global : colors
            let tIndex = UInt8(truncatingIfNeeded: transparent ?? 0)
            indexes.withUnsafeMutableBufferPointer { out in
                for y in 0..<r.height {
                    let rs = s + (r.y + y) * width + r.x, rt = t + (r.y + y) * width + r.x
                    for x in 0..<r.width {
                        out[y * r.width + x] = drawAll || differs(rs[x], rt[x]) ? table.index(of: rt[x])! : tIndex
                    }
                }
            }
        } else {
            drift = tolerance
            (palette, transparent) = try quantize(r, unchanged: unchanged)
        }

        // What the decoder will show, then the disposal.
        indexes.withUnsafeBufferPointer { idx in
            for y in 0..<r.height {
                let rs = s + (r.y + y) * width + r.x
                for x in 0..<r.width {
                    let i = Int(idx[y * r.width + x])
                    if i != transparent { rs[x] = palette[i] }
                }
            }
        }
        if file == nil {
            try open(globalPalette: options.globalPalette ? palette : nil)
            if options.globalPalette {
                global.assign(palette)
                globalTransparent = transparent
                useGlobal = true
            }
        } else if !fits, options.globalPalette, transparent == globalTransparent || transparent == nil, palette == global.colors {
            useGlobal = true   // remapped onto the shared palette, which is the global table
        }
        let delay = schedule.next(pendingDuration)
        try writeFrame(r, palette: useGlobal ? nil : palette, transparent: transparent,
                       delay: delay, dispose: clear == nil ? 1 : 2)
        if clear != nil { shown.clear(r) }
    }

    /// Whether a frame of `pixels` pixels in `localColors` colours should use the global table of
    /// `globalColors` rather than a local table of its own (3 bytes a colour, in powers of two).
    /// A wider table starts LZW codes that many bits wider, but codes grow to 12 bits as the
    /// dictionary fills whatever the start, so the difference is paid only by the first codes
    /// of each dictionary (about 2^bits of them; a code stands for two pixels or more).
    static func globalPays(pixels: Int, globalColors: Int, localColors: Int) -> Bool {
        func bits(_ n: Int) -> Int { var b = 1; while 1 << b < n { b += 1 }; return b }
        let extra = bits(globalColors) - bits(localColors)
        return extra <= 0 || min(pixels / 2, 1 << bits(globalColors)) * extra / 8 <= 3 << bits(localColors)
    }

    /// The palette and indexes for the changed pixels of `r` (unchanged ones are transparent in
    /// libimagequant's input, and come out as the transparent index): remapped onto the shared
    /// palette, or quantised on their own when that is too far off.
    private func quantize(_ r: FrameRect, unchanged: Bool) throws(AnimatedError) -> ([UInt32], Int?) {
        let s = shown.base, t = pendingTarget.base
        let n = r.width * r.height
        if scratch.count < n { scratch = [UInt32](repeating: 0, count: n) }
        scratch.withUnsafeMutableBufferPointer { out in
            for y in 0..<r.height {
                let rs = s + (r.y + y) * width + r.x, rt = t + (r.y + y) * width + r.x
                for x in 0..<r.width { out[y * r.width + x] = differs(rs[x], rt[x]) ? rt[x] : 0 }
            }
        }
        animplay_liq_one_thread()
        return try scratch.withUnsafeMutableBufferPointer { (px) throws(AnimatedError) -> ([UInt32], Int?) in
            let pixels = px.baseAddress!
            guard let image = animplay_liq_image_create_rgba(attr, pixels, Int32(r.width), Int32(r.height), 0) else {
                throw .system("libimagequant: out of memory")
            }
            defer { animplay_liq_image_destroy(image) }
            if shared == nil {
                if !samplesNeedPalette {
                    if let h = histogram { animplay_liq_histogram_destroy(h); histogram = nil }
                    try addToHistogram(pixels, width: r.width, height: r.height)
                }
                var result: OpaquePointer?
                guard animplay_liq_histogram_quantize(histogram!, attr, &result) == LIQ_OK, let result else {
                    throw .system("libimagequant could not make a palette")
                }
                animplay_liq_histogram_destroy(histogram!); histogram = nil
                _ = animplay_liq_set_dithering_level(result, options.dither ? 1.0 : 0)
                shared = result
            }
            let remapped = try remap(image, with: shared!, n: n)
            if meanSquaredError(pixels, n: n, palette: remapped.0) <= sharedLimit { return remapped }
            // Too far from the shared palette (a new scene): this frame's own.
            var result: OpaquePointer?
            guard animplay_liq_image_quantize(image, attr, &result) == LIQ_OK, let result else {
                throw .system("libimagequant could not quantise a frame")
            }
            defer { animplay_liq_result_destroy(result) }
            _ = animplay_liq_set_dithering_level(result, options.dither ? 1.0 : 0)
            return try remap(image, with: result, n: n)
        }
    }

    /// Writes `image`'s indexes for `result` into `indexes`; its palette, every entry below half
    /// alpha made the one transparent index.
    private func remap(_ image: OpaquePointer, with result: OpaquePointer, n: Int) throws(AnimatedError) -> ([UInt32], Int?) {
        let rc = indexes.withUnsafeMutableBytes { animplay_liq_write_remapped_image(result, image, $0.baseAddress!, n) }
        guard rc == LIQ_OK, let pal = animplay_liq_get_palette(result) else { throw .system("libimagequant could not remap a frame") }
        var palette: [UInt32] = []
        var transparent: Int?
        let count = Int(pal.pointee.count)
        withUnsafeBytes(of: pal.pointee.entries) { raw in
            let entries = raw.bindMemory(to: liq_color.self)
            for i in 0..<count {
                let c = entries[i]
                if c.a < 128 {
                    if transparent == nil { transparent = i }
                    palette.append(0)
                } else {
                    palette.append(0xFF00_0000 | UInt32(c.b) << 16 | UInt32(c.g) << 8 | UInt32(c.r))
                }
            }
        }
        if let tr = transparent, palette.lazy.filter({ $0 == 0 }).count > 1 {
            indexes.withUnsafeMutableBufferPointer { idx in
                for i in 0..<n where palette[Int(idx[i])] == 0 { idx[i] = UInt8(tr) }
            }
        }
        return (palette, transparent)
    }

    /// Mean squared error per channel of the remapped pixels against the frame's (transparent
    /// input pixels, the unchanged ones, do not count).
    private func meanSquaredError(_ pixels: UnsafeMutablePointer<UInt32>, n: Int, palette: [UInt32]) -> Double {
        var sum = 0, count = 0
        palette.withUnsafeBufferPointer { pal in
            indexes.withUnsafeBufferPointer { idx in
                for i in 0..<n where pixels[i] != 0 {
                    let a = pixels[i], b = pal[Int(idx[i])]
                    let dr = Int(a & 0xFF) - Int(b & 0xFF)
                    let dg = Int((a >> 8) & 0xFF) - Int((b >> 8) & 0xFF)
                    let db = Int((a >> 16) & 0xFF) - Int((b >> 16) & 0xFF)
                    sum += dr * dr + dg * dg + db * db
                    count += 1
                }
            }
        }
        return count == 0 ? 0 : Double(sum) / Double(count * 3)
    }

    // MARK: giflib

    private func open(globalPalette: [UInt32]?) throws(AnimatedError) {
        var error: Int32 = 0
        let user = Unmanaged.passUnretained(writer).toOpaque()
        guard let f = EGifOpen(user, { gif, bytes, count in
            guard let gif, let user = gif.pointee.UserData, let bytes, count > 0 else { return 0 }
            let w = Unmanaged<Writer>.fromOpaque(user).takeUnretainedValue()
            if w.error != nil { return 0 }
            do throws(AnimatedError) { try w.sink.write(UnsafeRawBufferPointer(start: bytes, count: Int(count))) } catch {
                w.error = error; return 0
            }
            return count
        }, &error) else { throw failure(error) }
        file = f
        EGifSetGifVersion(f, true)
        let map = globalPalette.flatMap(Self.colorMap)
        defer { if map != nil { GifFreeMapObject(map) } }
        guard EGifPutScreenDesc(f, Int32(width), Int32(height), 8, 0, map) != GIF_ERROR else { throw lastFailure() }
        if plays != 1 {
            // NETSCAPE2.0 looping: 0 = forever, else the number of repeats after the first play.
            let loops = plays == 0 ? 0 : min(0xFFFF, plays - 1)
            var id = Array("NETSCAPE2.0".utf8)
            var sub: [UInt8] = [1, UInt8(loops & 0xFF), UInt8(loops >> 8)]
            guard EGifPutExtensionLeader(f, APPLICATION_EXT_FUNC_CODE) != GIF_ERROR,
                  EGifPutExtensionBlock(f, 11, &id) != GIF_ERROR,
                  EGifPutExtensionBlock(f, 3, &sub) != GIF_ERROR,
                  EGifPutExtensionTrailer(f) != GIF_ERROR else { throw lastFailure() }
        }
    }

    private func writeFrame(_ r: FrameRect, palette: [UInt32]?, transparent: Int?, delay: Int, dispose: UInt8) throws(AnimatedError) {
        let f = file!
        var gce: [UInt8] = [dispose << 2 | (transparent != nil ? 1 : 0), UInt8(delay & 0xFF), UInt8(delay >> 8),
                            UInt8(truncatingIfNeeded: transparent ?? 0)]
        guard EGifPutExtension(f, GRAPHICS_EXT_FUNC_CODE, 4, &gce) != GIF_ERROR else { throw lastFailure() }
        let map = palette.flatMap(Self.colorMap)
        defer { if map != nil { GifFreeMapObject(map) } }
        // giflib's trap: EGifPutImageDesc keeps a copy of the last local colour map in
        // Image.ColorMap and, given none, overwrites that pointer without freeing it (a leak per
        // local-then-global pair of frames, found by the encode fuzz harness). Free it first.
        if map == nil, let previous = f.pointee.Image.ColorMap {
            GifFreeMapObject(previous)
            f.pointee.Image.ColorMap = nil
        }
        guard EGifPutImageDesc(f, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height), false, map) != GIF_ERROR else {
            throw lastFailure()
        }
        // EGifPutLine masks the row in place: it gets our scratch indexes.
        let ok = indexes.withUnsafeMutableBufferPointer { idx in
            for y in 0..<r.height where EGifPutLine(f, idx.baseAddress! + y * r.width, Int32(r.width)) == GIF_ERROR {
                return false
            }
            return true
        }
        guard ok else { throw lastFailure() }
    }

    /// A giflib colour map of the palette, padded to a power of two (at least 2 entries).
    private static func colorMap(_ palette: [UInt32]) -> UnsafeMutablePointer<ColorMapObject>? {
        var size = 2
        while size < palette.count { size *= 2 }
        var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
        for (i, c) in palette.enumerated() {
            colors[i] = GifColorType(Red: UInt8(c & 0xFF), Green: UInt8((c >> 8) & 0xFF), Blue: UInt8((c >> 16) & 0xFF))
        }
        return GifMakeMapObject(Int32(size), &colors)
    }

    private func lastFailure() -> AnimatedError {
        if let e = writer.error { return e }
        return failure(file?.pointee.Error ?? 0)
    }

    private func failure(_ code: Int32) -> AnimatedError {
        if let e = writer.error { return e }
        return .output("GIF encoder: \(GifErrorString(code).map { String(cString: $0) } ?? "error \(code)")")
    }
}
