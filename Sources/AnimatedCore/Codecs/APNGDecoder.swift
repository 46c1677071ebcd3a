/// PNG and APNG codec: the chunks are indexed and checked by `APNGChunkParser`, each frame's
/// pixels are decoded by libpng (`PNGFrameDecoder`).
///
/// A valid APNG is an animation (format `.apng`); a plain PNG, and an APNG whose animation
/// chunks are invalid, show the default image as one still frame (format `.png`), the latter
/// with a warning naming what was wrong. When the default image cannot be shown, opening throws.
/// The first frame is decoded while opening (and kept for the first `blend`), so that an
/// animation whose first frame is broken also falls back to the default image.
///
/// On a growing source (a pipe, a download) an APNG opens once its first frame is complete and
/// `refresh()` indexes the file again as it grows (geometrically: re-reading the chunk headers
/// costs a few passes over the file in all); a still PNG waits for the whole file. A file that
/// has ended inside a later frame's data keeps that frame, as Chromium shows it: the rows that
/// arrived (`FramePlan.partial`).
package final class APNGDecoder: AnimationDecoder {
    /// The animation as its chunks describe it.
    package private(set) var info: AnimationInfo
    let source: ByteSource
    private let options: DecodeOptions
    /// Growth (bytes) below which `refresh` waits for more; tests lower it.
    var refreshStep = 64 << 10
    private var indexedBytes: Int

    /// Where one frame's pixels are and how they combine with the canvas.
    struct FramePlan {
        var rect: FrameRect
        var blend: BlendOp
        var segments: [PNGDataSegment]
        /// The file ends inside this frame's data (`APNGChunkIndex.lastFrameIsPartial`).
        var partial = false
    }

    private var plans: [FramePlan]
    private let pixels: PNGFrameDecoder
    /// Colour type 4/6 or tRNS: without it every pixel is opaque and OVER equals SOURCE.
    private let hasTransparency: Bool
    /// Frames that need blending are decoded here first (frame 0 already is, while opening).
    private let scratch: FrameScratch
    /// A still larger than the limits is decoded row by row and reduced by this whole factor
    /// (`BoxDownscaler`) straight into the canvas; 1: full size.
    private let rowFactor: Int

    /// Largest width and area decoded row by row (a row buffer of 4 MiB; about 20 s of libpng).
    static let rowByRowMaxWidth = 1 << 20
    static let rowByRowMaxPixels = 1 << 31

    /// Indexes the PNG/APNG in `source` and decodes its first frame; throws when no frame can be shown.
    package init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        self.source = source
        self.options = options
        indexedBytes = source.count
        if let scaled = try Self.scaledStill(source, options: options) {
            let (index, factor) = scaled
            let header = index.header
            rowFactor = factor
            pixels = PNGFrameDecoder(source: source, header: header, palette: index.palette, transparency: index.transparency)
            scratch = FrameScratch()
            hasTransparency = index.hasTransparency
            plans = [FramePlan(rect: FrameRect(x: 0, y: 0, width: header.width, height: header.height), blend: .source,
                               segments: index.defaultImage)]
            let shown = FrameRect(x: 0, y: 0, width: (header.width + factor - 1) / factor, height: (header.height + factor - 1) / factor)
            var warnings = index.warnings
            if index.hasAnimationChunks { warnings.append("invalid APNG; showing the default image") }
            info = AnimationInfo(format: .png, width: shown.width, height: shown.height,
                                 frames: [FrameInfo(rect: shown, delayMs: 0, dispose: .none, blend: .source,
                                                    hasAlpha: index.hasTransparency)],
                                 plays: 1, warnings: warnings, timing: options.timing)
            info.scaledFrom = ImageSize(width: header.width, height: header.height)
            return
        }
        rowFactor = 1
        // A file that will not grow keeps a frame whose data it ends in (what is still coming
        // is not truncation).
        let index = try APNGChunkParser.parse(source, limits: options.limits, keepPartialFrame: !source.isGrowing)
        let header = index.header
        let pixels = PNGFrameDecoder(source: source, header: header, palette: index.palette,
                                     transparency: index.transparency)
        let scratch = FrameScratch()
        var warnings = index.warnings
        var plans: [FramePlan] = []
        var frames: [FrameInfo] = []
        var plays = 1

        if let animation = index.animation, index.animationProblems.isEmpty, !index.frames.isEmpty {
            for (k, f) in index.frames.enumerated() {
                let rect = FrameRect(x: f.x, y: f.y, width: f.width, height: f.height)
                let blend: BlendOp = f.blendOp == 1 ? .over : .source
                let partial = index.lastFrameIsPartial && k == index.frames.count - 1
                plans.append(FramePlan(rect: rect, blend: blend,
                                       segments: f.isDefaultImage ? index.defaultImage : f.segments, partial: partial))
                let den = f.delayDenominator == 0 ? 100 : Double(f.delayDenominator)
                // A partial frame's alpha is the image's too: one that replaces the whole canvas
                // with opaque pixels is decoded alone (`blend`), as in Chromium.
                frames.append(FrameInfo(rect: rect, delayMs: Double(f.delayNumerator) * 1000 / den,
                                        dispose: [.none, .background, .previous][Int(f.disposeOp)],
                                        blend: blend, hasAlpha: index.hasTransparency))
            }
            plays = Int(animation.plays)
            do {
                try Self.decode(0, plans[0], with: pixels, into: scratch)
            } catch {
                if index.frames[0].isDefaultImage { throw .invalid("frame 0: \(error.message)") }
                warnings.append("frame 0 cannot be decoded (\(error.message)); showing the default image")
                plans = []; frames = []; plays = 1
            }
        } else if index.hasAnimationChunks {
            let why = index.animationProblems.isEmpty ? ["no frames"] : index.animationProblems
            warnings.append("invalid APNG (\(why.joined(separator: "; "))); showing the default image")
        }

        let format: ImageFormat = plans.isEmpty ? .png : .apng
        if plans.isEmpty {
            let whole = FrameRect(x: 0, y: 0, width: header.width, height: header.height)
            plans = [FramePlan(rect: whole, blend: .source, segments: index.defaultImage)]
            frames = [FrameInfo(rect: whole, delayMs: 0, dispose: .none, blend: .source,
                                hasAlpha: index.hasTransparency)]
            do {
                try Self.decode(0, plans[0], with: pixels, into: scratch)
            } catch {
                throw .invalid("default image: \(error.message)")
            }
        }

        self.plans = plans
        self.pixels = pixels
        self.scratch = scratch
        self.hasTransparency = index.hasTransparency
        if source.isGrowing {
            // A still image (or an animation shown as its default image) is shown once whole.
            guard format == .apng else { throw .invalid("waiting for the whole PNG") }
            // What is missing is still coming: not truncation.
            warnings.removeAll { $0.hasPrefix("file is truncated") || $0.hasPrefix("file ends without IEND") }
        }
        info = AnimationInfo(format: format, width: header.width, height: header.height, frames: frames,
                             plays: plays, warnings: warnings, timing: options.timing)
        info.provisional = source.isGrowing
    }

    /// Indexes the file again once it has grown by an eighth (or ended). Frames already
    /// indexed are unchanged (their data does not move), so only the plans and `info` grow.
    package func refresh() throws(AnimatedError) -> Bool {
        guard info.provisional else { return false }
        source.refresh()
        if source.isGrowing && source.count - indexedBytes < max(refreshStep, indexedBytes / 8) {
            return false
        }
        let next = try APNGDecoder(source: source, options: options)
        guard next.info.format == .apng, next.plans.count >= plans.count else {
            // The whole file says less than its beginning did (its animation chunks turn out
            // invalid): keep the frames indexed so far, which were complete, and end there.
            info.provisional = next.info.provisional
            info.warnings += next.info.warnings
            return true
        }
        indexedBytes = source.count
        let changed = next.plans.count != plans.count || !source.isGrowing
        plans = next.plans
        info = next.info
        return changed
    }

    /// A PNG over the limits that is a still (no valid animation), not interlaced and not too
    /// wide or large to stream: its index and the factor that brings it into the limits. Nil
    /// when the PNG fits (or cannot be scaled: then the limit error is thrown).
    private static func scaledStill(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> (APNGChunkIndex, Int)? {
        let full: AnimatedError
        do {
            _ = try APNGChunkParser.readHeader(source, limits: options.limits)
            return nil
        } catch {
            full = error
        }
        guard full.kind == .limitExceeded, options.scaleDownStills, !source.isGrowing else { throw full }
        var relaxed = options.limits
        relaxed.maxDimension = rowByRowMaxWidth
        relaxed.maxPixels = rowByRowMaxPixels
        relaxed.maxDecodedBytes = Int.max / 16
        guard let index = try? APNGChunkParser.parse(source, limits: relaxed) else { throw full }
        let animated = index.animation != nil && index.animationProblems.isEmpty && !index.frames.isEmpty
        guard !animated, index.header.interlace == 0,
              let k = StillScale.boxFactor(width: index.header.width, height: index.header.height,
                                           limits: options.scaledStillLimits, workingCopies: 2) else { throw full }
        return (index, k)
    }

    /// Decodes frame `index` and draws it onto `canvas` with the frame's blend op (no disposal: see `Compositor`).
    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        if rowFactor > 1 {
            let plan = plans[0]
            let box = BoxDownscaler(sourceWidth: plan.rect.width, sourceHeight: plan.rect.height, factor: rowFactor, into: canvas)
            do {
                try pixels.decodeRows(width: plan.rect.width, height: plan.rect.height, segments: plan.segments) { y, row in
                    box.add(row: y, row)
                }
            } catch {
                throw .invalid("frame 0: \(error.message)")
            }
            return
        }
        let plan = plans[index]
        let r = plan.rect
        let inside = r.x >= 0 && r.y >= 0 && r.x + r.width <= canvas.width && r.y + r.height <= canvas.height
        let direct = inside && (plan.blend == .source || !hasTransparency)
        do {
            try scratch.draw(index, rect: r, onto: canvas, direct: direct,
                             decode: { (into, stride) throws(AnimatedError) in
                                 guard plan.partial else {
                                     try pixels.decode(width: r.width, height: r.height, segments: plan.segments,
                                                       into: into, stride: stride)
                                     return
                                 }
                                 // As Chromium shows it: the rows its data reaches; below them,
                                 // in a frame decoded alone (a keyframe, or one that replaces the
                                 // whole canvas), nothing, and in any other what was under the
                                 // frame (in the buffer: transparent rows, which blending leaves
                                 // the canvas unchanged under).
                                 let alone = info.frames[index].keyframe
                                     || (r.covers(width: canvas.width, height: canvas.height) && plan.blend == .source)
                                 Self.decodePartial(plan, with: pixels, into: into, stride: stride, clearFirst: !direct || alone)
                             },
                             blend: { Blend.image($0, width: r.width, height: r.height, srcStride: r.width * 4,
                                                  at: r.x, r.y, onto: canvas, op: plan.blend) })
        } catch {
            throw .invalid("frame \(index): \(error.message)")
        }
    }

    /// Decodes frame `index` into `scratch` (while opening: the first frame, or the default image).
    private static func decode(_ index: Int, _ plan: FramePlan, with pixels: PNGFrameDecoder,
                               into scratch: FrameScratch) throws(AnimatedError) {
        let r = plan.rect
        try scratch.load(index, rect: r) { (into, stride) throws(AnimatedError) in
            try pixels.decode(width: r.width, height: r.height, segments: plan.segments, into: into, stride: stride)
        }
    }

    /// Decodes a partial frame (`FramePlan.partial`) into rows `stride` bytes apart: the rows
    /// its data completes, over transparent rows when `clearFirst`. Where decoding stops is not
    /// an error (the data ends there, however libpng words it; the file's warning says so).
    private static func decodePartial(_ plan: FramePlan, with pixels: PNGFrameDecoder, into: UnsafeMutablePointer<UInt8>,
                                      stride: Int, clearFirst: Bool) {
        let r = plan.rect
        if clearFirst {
            for y in 0..<r.height { (into + y * stride).update(repeating: 0, count: r.width * 4) }
        }
        try? pixels.decode(width: r.width, height: r.height, segments: plan.segments, into: into, stride: stride)
    }
}
