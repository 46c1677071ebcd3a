/// Images already in memory played as an animation with their own durations (YYFrameImage's
/// `initWithImages:frameDurations:`): each image is one frame, centred on a canvas as large as
/// the largest, the rest transparent; every frame is a keyframe.
package final class ImageSequenceDecoder: AnimationDecoder {
    package let info: AnimationInfo
    private let images: [Canvas]

    /// `images[i]` is shown for `durationsMs[i]` milliseconds (as given: no browser minimum);
    /// `plays` 0 = forever.
    package init(images: [Canvas], durationsMs: [Double], plays: Int = 0,
                options: DecodeOptions = DecodeOptions()) throws(AnimatedError) {
        guard !images.isEmpty else { throw .invalid("no images to play") }
        guard durationsMs.count == images.count else {
            throw .invalid("\(durationsMs.count) durations for \(images.count) images: give one per image")
        }
        if let bad = durationsMs.first(where: { !($0 >= 0 && $0.isFinite) }) { throw .invalid("duration \(bad) ms is not valid") }
        guard images.count <= options.limits.maxFrames else {
            throw .limitExceeded("\(images.count) images exceed the limit of \(options.limits.maxFrames) frames")
        }
        let width = images.map(\.width).max()!, height = images.map(\.height).max()!
        try options.limits.check(width: width, height: height, workingCopies: 2)
        let placements = images.map { FrameRect(x: (width - $0.width) / 2, y: (height - $0.height) / 2, width: $0.width, height: $0.height) }
        let frames = IndependentFrames.infos(placements: placements, delaysMs: durationsMs,
                                             sources: Array(repeating: FrameSource(), count: images.count),
                                             width: width, height: height)
        self.images = images
        info = AnimationInfo(format: .frameSequence, width: width, height: height, frames: frames, plays: max(0, plays),
                             timing: TimingPolicy(browserMinimumDelay: false))
    }

    /// Copies image `index` to its place on the canvas.
    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        let image = images[index], rect = info.frames[index].rect
        Blend.image(UnsafePointer(image.pixels.baseAddress!), width: image.width, height: image.height,
                    srcStride: image.rowBytes, at: rect.x, rect.y, onto: canvas, op: .source)
    }
}
