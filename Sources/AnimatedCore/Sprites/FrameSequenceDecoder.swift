/// A list of image files played as frames (YYFrameImage). `init` reads only each file's
/// headers; a frame's file is opened and decoded when the frame is blended, so memory does
/// not grow with the number of files. Images may differ in size: the canvas is the largest
/// width × the largest height and each image is centred on it, the rest transparent.
///
/// A still is one frame, shown for the sequence's delay. An animation among the files gives
/// every frame it has, composited as it plays on its own (disposal, blending, its browser
/// times), once, as `gifsicle a.gif b.gif` and ImageMagick join animations (it gave its first
/// frame alone before, with a warning).
public final class FrameSequenceDecoder: AnimationDecoder {
    /// One frame per still, one per frame of an animation, in the given order.
    public let info: AnimationInfo
    /// The images, each giving one frame or (an animation) several.
    public let files: [String]
    private let options: DecodeOptions
    /// Why a file's headers could not be read (the frame reports it; playback goes on).
    private let openErrors: [Int: AnimatedError]
    /// Where each frame comes from.
    private let members: [Member]
    /// The animation whose frames were composited last: the next of its frames composites on
    /// from there (an animation without keyframes would otherwise replay from its frame 0 for
    /// every frame).
    private var current: (file: Int, compositor: Compositor)?

    /// A frame of the sequence: its file, and for an animation its frame there, that frame's
    /// display time and whether it is a keyframe in its file.
    private struct Member {
        let file: Int
        var frame: Int? = nil
        var delayMs: Double? = nil
        var keyframe = true
    }

    /// `delayMs` applies to every still (default 10 fps), unless `delaysMs` gives each its own
    /// (one per file kept; none when a file is animated); `frameLimit` keeps the first N frames.
    public init(files allFiles: [String], delayMs: Double = SpriteSheetSpec.defaultDelayMs, delaysMs: [Double]? = nil,
                frameLimit: Int? = nil,
                options: DecodeOptions = DecodeOptions(), warnings extraWarnings: [String] = []) throws(AnimatedError) {
        guard !allFiles.isEmpty else { throw .invalid("no images to play") }
        if let frameLimit, frameLimit < 1 { throw .invalid("\(frameLimit) frames asked for: give 1 or more") }
        if let delaysMs, let bad = delaysMs.first(where: { !($0 >= 1 && $0 <= 3_600_000) }) {
            throw .invalid("delay \(bad) ms is not 1 to 3600000 ms")
        }
        // Files are read up to the frame limit: a still is one frame, an animation its frames.
        var files: [String] = []
        var members: [Member] = []
        var sizes: [(width: Int, height: Int)] = []
        var errors: [Int: AnimatedError] = [:]
        var warnings = extraWarnings
        var animated: [String] = []
        var plays: Set<Int> = []
        for path in allFiles {
            if let frameLimit, members.count >= frameLimit { break }
            let i = files.count
            files.append(path)
            do {
                let d = try AnimationLoader.open(path: path, options: options)
                sizes.append((d.info.width, d.info.height))
                if d.info.frameCount > 1 {
                    animated.append(path)
                    plays.insert(d.info.plays)
                    for (j, f) in d.info.frames.enumerated() {
                        members.append(Member(file: i, frame: j, delayMs: d.info.timing.displayMs(f.delayMs), keyframe: f.keyframe))
                    }
                } else {
                    members.append(Member(file: i))
                }
            } catch {
                errors[i] = error
                sizes.append((0, 0))
                members.append(Member(file: i))
                warnings.append("\(path): \(error)")
            }
            guard members.count <= options.limits.maxFrames else {
                throw .limitExceeded("\(animated.isEmpty ? "\(members.count) images" : "the files' \(members.count) frames") exceed the limit of \(options.limits.maxFrames) frames")
            }
        }
        if let frameLimit {
            guard frameLimit <= members.count else {
                throw .invalid("\(frameLimit) frames asked for, but there are \(members.count) \(animated.isEmpty ? "images" : "frames")")
            }
            members.removeLast(members.count - frameLimit)
        }
        if let delaysMs {
            // One per image; an animation's frames keep their own.
            if let first = animated.first { throw .invalid("\(first) is animated: its frames keep their own delays, so give no delay list") }
            guard delaysMs.count == files.count else {
                throw .invalid("\(delaysMs.count) delays given for \(files.count) frames: give one per frame")
            }
        }
        if errors.count == files.count, let first = errors[0] { throw first.prefixed(files[0] + ": ") }
        let width = sizes.map(\.width).max()!, height = sizes.map(\.height).max()!
        try options.limits.check(width: width, height: height, workingCopies: 2)

        let distinct = Set(sizes.filter { $0.width > 0 }.map { $0.width << 32 | $0.height }).count
        if distinct > 1 {
            warnings.append("images differ in size (\(distinct) sizes): each is centred on the \(width)x\(height) canvas")
        }
        let placements = sizes.map {
            FrameRect(x: ($0.width == 0 ? 0 : (width - $0.width) / 2), y: ($0.height == 0 ? 0 : (height - $0.height) / 2),
                      width: $0.width, height: $0.height)
        }
        self.files = files
        self.options = options
        self.openErrors = errors
        self.members = members
        let delays = members.map { m in m.delayMs ?? delaysMs?[m.file] ?? delayMs }
        let frames = IndependentFrames.infos(placements: members.map { placements[$0.file] }, delaysMs: delays,
                                             sources: members.map { FrameSource(file: files[$0.file], fileFrame: $0.frame) },
                                             width: width, height: height)
        // Animations alone that agree on their plays keep them (two GIFs that play once join
        // into one that plays once); anything else loops, as a sequence of stills does.
        let joinedPlays = animated.count == files.count && plays.count == 1 ? plays.first! : 0
        var joined = AnimationInfo(format: .frameSequence, width: width, height: height, frames: frames, plays: joinedPlays,
                                   warnings: warnings, timing: TimingPolicy(browserMinimumDelay: false))
        // Each frame replaces the picture, but an animation's frame costs what its file's
        // compositing does: one that is not a keyframe there is not one here either, so that a
        // player going backwards composites on from a keyframe, as it does for that file alone,
        // instead of asking for each frame by itself (each a replay within the file: reverse
        // play of two 150-frame GIFs of delta frames took 5.05 s of CPU instead of 0.5).
        for k in joined.frames.indices where !members[k].keyframe { joined.frames[k].keyframe = false }
        info = joined
    }

    /// The images of `folder` in natural order (see `ImageFolder`).
    public convenience init(folder: String, delayMs: Double = SpriteSheetSpec.defaultDelayMs, delaysMs: [Double]? = nil,
                            frameLimit: Int? = nil,
                            options: DecodeOptions = DecodeOptions()) throws(AnimatedError) {
        let listing = try ImageFolder.list(folder, maxFiles: options.limits.maxFrames, coders: options.coders)
        let kinds = options.coders.formatList
        guard !listing.files.isEmpty else {
            var found: [String] = []
            if listing.skipped > 0 { found.append(counted(listing.skipped, "other file")) }
            if listing.subfolders > 0 {
                found.append(counted(listing.subfolders, "subfolder") + (listing.subfolders == 1 ? ", which is" : ", which are")
                             + " not searched")
            }
            throw .invalid(found.isEmpty ? "the folder is empty"
                                         : "no \(kinds) images in the folder (\(found.joined(separator: "; ")))")
        }
        let note = listing.skipped > 0 ? [listing.skipped == 1 ? "skipped 1 file that is not a \(kinds) image"
                                                : "skipped \(listing.skipped) files that are not \(kinds) images"] : []
        try self.init(files: listing.files, delayMs: delayMs, delaysMs: delaysMs, frameLimit: frameLimit, options: options,
                      warnings: note)
    }

    /// Decodes the still (or composites the animation's frame) and places it centred. A
    /// damaged file shows what decoded and throws, naming the file.
    public func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        let file = members[index].file, member = members[index].frame
        let path = files[file]
        if let e = openErrors[file] { throw e.prefixed(path + ": ") }
        let rect = info.frames[index].rect
        if let member {
            try blend(frame: member, of: file, at: rect, onto: canvas)
            return
        }
        let decoder = try reopen(file, rect)
        let image = Canvas(width: rect.width, height: rect.height)
        var problem: AnimatedError?
        do { try decoder.blend(frame: 0, onto: image) } catch { problem = error.prefixed(path + ": ") }
        Blend.image(UnsafePointer(image.pixels.baseAddress!), width: image.width, height: image.height,
                    srcStride: image.rowBytes, at: rect.x, rect.y, onto: canvas, op: .source)
        if let problem { throw problem }
    }

    /// Frame `member` of the animation in file `file`, composited, placed at `rect`.
    private func blend(frame member: Int, of file: Int, at rect: FrameRect, onto canvas: Canvas) throws(AnimatedError) {
        let compositor: Compositor
        if let current, current.file == file {
            compositor = current.compositor
        } else {
            current = nil
            compositor = try Compositor(decoder: reopen(file, rect))
            guard compositor.info.frameCount > member else {
                throw .invalid("\(files[file]): changed since it was opened (frame \(member) is gone)")
            }
            current = (file, compositor)
        }
        let image = compositor.frame(at: member)
        Blend.image(UnsafePointer(image.pixels.baseAddress!), width: image.width, height: image.height,
                    srcStride: image.rowBytes, at: rect.x, rect.y, onto: canvas, op: .source)
        if let problem = compositor.problems[member] { throw .invalid("\(files[file]): \(problem)") }
    }

    /// File `file` opened again, as large as when the sequence was made.
    private func reopen(_ file: Int, _ rect: FrameRect) throws(AnimatedError) -> any AnimationDecoder {
        let path = files[file]
        let decoder: any AnimationDecoder
        do { decoder = try AnimationLoader.open(path: path, options: options) } catch { throw error.prefixed(path + ": ") }
        guard decoder.info.width == rect.width, decoder.info.height == rect.height else {
            throw .invalid("\(path): changed since it was opened (was \(rect.width)x\(rect.height), now \(decoder.info.width)x\(decoder.info.height))")
        }
        return decoder
    }
}

/// "1 subfolder", "2 subfolders".
private func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
