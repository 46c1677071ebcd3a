/// PNG and APNG codec: the chunks are indexed and checked by `APNGChunkParser`, each frame's
/// pixels are decoded by libpng (`PNGFrameDecoder`).
///
/// A valid APNG is an animation (format `.apng`); a plain PNG, and an APNG whose animation
/// chunks are invalid, show the default image as one still frame (format `.png`), the latter
/// with a warning naming what was wrong. When the default image cannot be shown, opening throws.
/// The first frame is decoded while opening (and kept for the first `blend`), so that an
/// animation whose first frame is broken also falls back to the default image.
public final class APNGDecoder: AnimationDecoder {
    public let info: AnimationInfo
    let source: ByteSource

    /// Where one frame's pixels are and how they combine with the canvas.
    struct FramePlan {
        var rect: FrameRect
        var blend: BlendOp
        var segments: [PNGDataSegment]
    }

    private let plans: [FramePlan]
    private let pixels: PNGFrameDecoder
    /// Colour type 4/6 or tRNS: without it every pixel is opaque and OVER equals SOURCE.
    private let hasTransparency: Bool
    /// RGBA of the frame `scratchFrame` (-1: none), for frames that need blending.
    private let scratch: PixelScratch
    private var scratchFrame: Int

    public init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        self.source = source
        let index = try APNGChunkParser.parse(source, limits: options.limits)
        let header = index.header
        let pixels = PNGFrameDecoder(source: source, header: header, palette: index.palette,
                                     transparency: index.transparency)
        let scratch = PixelScratch()
        var warnings = index.warnings
        var plans: [FramePlan] = []
        var frames: [FrameInfo] = []
        var plays = 1

        if let animation = index.animation, index.animationProblems.isEmpty, !index.frames.isEmpty {
            for f in index.frames {
                let rect = FrameRect(x: f.x, y: f.y, width: f.width, height: f.height)
                let blend: BlendOp = f.blendOp == 1 ? .over : .source
                plans.append(FramePlan(rect: rect, blend: blend,
                                       segments: f.isDefaultImage ? index.defaultImage : f.segments))
                let den = f.delayDenominator == 0 ? 100 : Double(f.delayDenominator)
                frames.append(FrameInfo(rect: rect, delayMs: Double(f.delayNumerator) * 1000 / den,
                                        dispose: [.none, .background, .previous][Int(f.disposeOp)],
                                        blend: blend, hasAlpha: index.hasTransparency))
            }
            plays = Int(animation.plays)
            do {
                try Self.decode(plans[0], with: pixels, into: scratch)
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
                try Self.decode(plans[0], with: pixels, into: scratch)
            } catch {
                throw .invalid("default image: \(error.message)")
            }
        }

        self.plans = plans
        self.pixels = pixels
        self.scratch = scratch
        self.scratchFrame = 0
        self.hasTransparency = index.hasTransparency
        info = AnimationInfo(format: format, width: header.width, height: header.height, frames: frames,
                             plays: plays, warnings: warnings, timing: options.timing)
    }

    public func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        let plan = plans[index]
        let r = plan.rect
        if index == scratchFrame {
            Blend.image(scratch.pointer, width: r.width, height: r.height, srcStride: r.width * 4,
                        at: r.x, r.y, onto: canvas, op: plan.blend)
            return
        }
        let inside = r.x >= 0 && r.y >= 0 && r.x + r.width <= canvas.width && r.y + r.height <= canvas.height
        do {
            if inside && (plan.blend == .source || !hasTransparency) {
                // The frame replaces its rectangle: libpng writes straight into the canvas.
                let dst = canvas.pixels.baseAddress! + (r.y * canvas.width + r.x) * 4
                try pixels.decode(width: r.width, height: r.height, segments: plan.segments,
                                  into: dst, stride: canvas.width * 4)
            } else {
                scratchFrame = -1
                try Self.decode(plan, with: pixels, into: scratch)
                scratchFrame = index
                Blend.image(scratch.pointer, width: r.width, height: r.height, srcStride: r.width * 4,
                            at: r.x, r.y, onto: canvas, op: plan.blend)
            }
        } catch {
            throw .invalid("frame \(index): \(error.message)")
        }
    }

    /// Decodes a frame into `scratch`, rows packed.
    private static func decode(_ plan: FramePlan, with pixels: PNGFrameDecoder,
                               into scratch: PixelScratch) throws(AnimatedError) {
        let r = plan.rect
        let buffer = scratch.reserve(r.width * r.height * 4)
        try pixels.decode(width: r.width, height: r.height, segments: plan.segments,
                          into: buffer, stride: r.width * 4)
    }
}

/// A pixel buffer that grows to the largest frame it has held and is then reused.
fileprivate final class PixelScratch {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    private var capacity = 0

    init() { pointer = .allocate(capacity: 1) }
    deinit { pointer.deallocate() }

    /// At least `count` bytes (contents undefined).
    func reserve(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if count > capacity {
            pointer.deallocate()
            pointer = .allocate(capacity: count)
            capacity = count
        }
        return pointer
    }
}
