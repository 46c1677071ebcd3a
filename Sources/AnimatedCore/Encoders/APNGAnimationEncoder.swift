import CPNG

/// APNG: libpng compresses each frame's pixels (Debian's libpng has no APNG support, so the
/// IDAT data of a plain PNG becomes the frame's IDAT or fdAT) and this writes the acTL, fcTL and
/// fdAT chunks. Always lossless, 8-bit RGBA.
///
/// As apngasm: every frame is cropped to the rectangle that changed, and the dispose op of the
/// frame before and this frame's blend op are chosen among all six pairs by which compresses
/// smallest. That choice needs the next frame, so one frame waits (`pending`) until the next
/// arrives or `finish()`. Streaming: acTL's frame count is unknown until the end, so a
/// placeholder is written and patched (`EncoderSink.patch`).
package final class APNGAnimationEncoder: AnimationEncoder {
    private let width: Int, height: Int, plays: Int
    private let sink: any EncoderSink
    private var schedule = DelaySchedule.milliseconds
    /// The canvas before the pending frame was drawn (after the disposal of the one before it).
    private let before: PixelPlane
    /// The pending frame's composited image (what it shows).
    private let shown: PixelPlane
    private let incoming: PixelPlane
    private let trial: PixelPlane
    private var pending: Candidate?
    private var pendingDelay = 0
    private var frames = 0
    private var sequence: UInt32 = 0
    private var acTLOffset = 0
    private var png = animplay_png_buffer()
    private var finished = false

    /// One way to draw a frame: its rectangle, blend op, and the RGBA pixels of the rectangle.
    private struct Candidate {
        var rect: FrameRect
        var blend: BlendOp
        var pixels: [UInt32]
    }

    init(width: Int, height: Int, plays: Int, options: EncoderOptions, sink: any EncoderSink) throws(AnimatedError) {
        guard width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else { throw .output("APNG: canvas too large") }
        if let why = animplay_png_load() { throw .system(String(cString: why)) }
        self.width = width; self.height = height; self.plays = plays; self.sink = sink
        before = PixelPlane(width: width, height: height)
        shown = PixelPlane(width: width, height: height)
        incoming = PixelPlane(width: width, height: height)
        trial = PixelPlane(width: width, height: height)
    }

    deinit { animplay_png_buffer_free(&png) }

    package func add(_ canvas: Canvas, durationMs: Double) throws(AnimatedError) {
        precondition(!finished, "add after finish")
        let delay = schedule.next(durationMs)
        if frames == 0 {
            try writeHeader()
            shown.copy(from: canvas)
            pending = Candidate(rect: FrameRect(x: 0, y: 0, width: width, height: height), blend: .source,
                                pixels: Array(shown.pixels))
            pendingDelay = delay
            frames = 1
            return
        }
        incoming.copy(from: canvas)
        // The dispose op of the pending frame and the next frame's drawing, smallest first.
        var best: (dispose: DisposeOp, candidate: Candidate, size: Int)?
        let disposals: [DisposeOp] = frames == 1 ? [.none, .background] : [.none, .background, .previous]
        for dispose in disposals {
            disposed(by: dispose, into: trial)
            for candidate in candidates(from: trial, to: incoming) {
                let size = try compressedSize(candidate)
                if best == nil || size < best!.size { best = (dispose, candidate, size) }
            }
        }
        let chosen = best!
        try writeFrame(pending!, delay: pendingDelay, dispose: chosen.dispose)
        disposed(by: chosen.dispose, into: trial)
        before.copy(from: trial)
        shown.copy(from: incoming)
        pending = chosen.candidate
        pendingDelay = delay
        frames += 1
    }

    package func finish() throws(AnimatedError) {
        precondition(!finished, "finish twice")
        finished = true
        guard let last = pending else { throw .invalid("no frames to write") }
        try writeFrame(last, delay: pendingDelay, dispose: .none)
        try writeChunk("IEND", [])
        var actl: [UInt8] = []
        actl.appendBE32(UInt32(frames)); actl.appendBE32(UInt32(clamping: plays))
        try sink.patch(chunk("acTL", actl), at: acTLOffset)
    }

    /// What the canvas holds after the pending frame is shown and disposed by `op`.
    private func disposed(by op: DisposeOp, into plane: PixelPlane) {
        switch op {
        case .none: plane.copy(from: shown)
        case .background: plane.copy(from: shown); plane.clear(pending!.rect)
        case .previous: plane.copy(from: before)
        }
    }

    /// The ways to turn `from` into `to`: SOURCE with the changed rectangle's pixels, and OVER
    /// with unchanged pixels transparent, when OVER gives every changed pixel exactly (it does
    /// where the new pixel is opaque, or where the canvas is transparent and the new one not).
    private func candidates(from: PixelPlane, to: PixelPlane) -> [Candidate] {
        guard let r = from.changedRect(against: to) else {
            // Nothing changed: one transparent pixel drawn OVER changes nothing.
            return [Candidate(rect: FrameRect(x: 0, y: 0, width: 1, height: 1), blend: .over, pixels: [0])]
        }
        var source = [UInt32](repeating: 0, count: r.width * r.height)
        var over = source
        var overExact = true
        for y in 0..<r.height {
            let a = from.base + (r.y + y) * width + r.x, b = to.base + (r.y + y) * width + r.x
            for x in 0..<r.width {
                let t = b[x]
                source[y * r.width + x] = t
                if a[x] != t {
                    let ta = t >> 24, fa = a[x] >> 24   // alpha is the high byte (little-endian RGBA)
                    if ta == 255 || (fa == 0 && ta != 0) { over[y * r.width + x] = t } else { overExact = false }
                }
            }
        }
        var result = [Candidate(rect: r, blend: .source, pixels: source)]
        if overExact { result.append(Candidate(rect: r, blend: .over, pixels: over)) }
        return result
    }

    /// The candidate's size with fast settings (for ranking only).
    private func compressedSize(_ c: Candidate) throws(AnimatedError) -> Int {
        try compress(c, level: 1, adaptive: false)
        return png.length
    }

    /// Compresses the candidate's pixels into `png` (a whole PNG file).
    private func compress(_ c: Candidate, level: Int32, adaptive: Bool) throws(AnimatedError) {
        png.length = 0; png.failed = 0
        let rc = c.pixels.withUnsafeBytes { p in
            animplay_png_encode(p.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(c.rect.width),
                                UInt32(c.rect.height), c.rect.width * 4, 4, level, adaptive ? 1 : 0, &png)
        }
        guard rc == 0 else { throw .system("APNG: out of memory while compressing a frame") }
    }

    private func writeHeader() throws(AnimatedError) {
        try sink.write([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var ihdr: [UInt8] = []
        ihdr.appendBE32(UInt32(width)); ihdr.appendBE32(UInt32(height))
        ihdr += [8, 6, 0, 0, 0]   // 8-bit RGBA, deflate, adaptive filtering, not interlaced
        try writeChunk("IHDR", ihdr)
        acTLOffset = sink.offset
        try writeChunk("acTL", [UInt8](repeating: 0, count: 8))   // patched by finish()
    }

    private func writeFrame(_ c: Candidate, delay: Int, dispose: DisposeOp) throws(AnimatedError) {
        var fctl: [UInt8] = []
        fctl.appendBE32(sequence); sequence += 1
        fctl.appendBE32(UInt32(c.rect.width)); fctl.appendBE32(UInt32(c.rect.height))
        fctl.appendBE32(UInt32(c.rect.x)); fctl.appendBE32(UInt32(c.rect.y))
        let (num, den) = Self.fraction(delayMs: delay)
        fctl.appendBE16(num); fctl.appendBE16(den)
        fctl.append(dispose == .none ? 0 : dispose == .background ? 1 : 2)
        fctl.append(c.blend == .source ? 0 : 1)
        try writeChunk("fcTL", fctl)
        try compress(c, level: 9, adaptive: true)
        let isFirst = sequence == 1
        // The IDAT chunks of libpng's output carry the zlib stream of the filtered rows.
        var i = 8
        while i + 12 <= png.length {
            let p = png.data!
            let n = Int(p[i]) << 24 | Int(p[i + 1]) << 16 | Int(p[i + 2]) << 8 | Int(p[i + 3])
            guard i + 12 + n <= png.length else { break }
            if p[i + 4] == 0x49, p[i + 5] == 0x44, p[i + 6] == 0x41, p[i + 7] == 0x54 {   // IDAT
                let data = UnsafeRawBufferPointer(start: p + i + 8, count: n)
                if isFirst {
                    try writeChunk("IDAT", Array(data))
                } else {
                    var body: [UInt8] = []
                    body.reserveCapacity(n + 4)
                    body.appendBE32(sequence); sequence += 1
                    body.append(contentsOf: data)
                    try writeChunk("fdAT", body)
                }
            }
            i += 12 + n
        }
    }

    /// A delay in ms as the fcTL's delay_num/delay_den.
    static func fraction(delayMs ms: Int) -> (UInt16, UInt16) {
        if ms <= 0xFFFF { return (UInt16(ms), 1000) }
        if ms / 10 <= 0xFFFF { return (UInt16((ms + 5) / 10), 100) }
        if ms / 100 <= 0xFFFF { return (UInt16((ms + 50) / 100), 10) }
        return (UInt16(min(0xFFFF, (ms + 500) / 1000)), 1)
    }

    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 12)
        out.appendBE32(UInt32(data.count))
        let start = out.count
        out.append(contentsOf: type.utf8)
        out.append(contentsOf: data)
        let crc = out.withUnsafeBufferPointer { animplay_crc32($0.baseAddress! + start, $0.count - start) }
        out.appendBE32(crc)
        return out
    }

    private func writeChunk(_ type: String, _ data: [UInt8]) throws(AnimatedError) {
        try sink.write(chunk(type, data))
    }
}
