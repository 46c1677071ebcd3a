/// A list of image files played as frames (YYFrameImage). `init` reads only each file's
/// headers; a frame's file is opened and decoded when the frame is blended, so memory does
/// not grow with the number of files. Images may differ in size: the canvas is the largest
/// width × the largest height and each image is centred on it, the rest transparent.
public final class FrameSequenceDecoder: AnimationDecoder {
    /// One frame per image, in the given order.
    public let info: AnimationInfo
    /// The images, one per frame.
    public let files: [String]
    private let options: DecodeOptions
    /// Why a file's headers could not be read (the frame reports it; playback goes on).
    private let openErrors: [Int: AnimatedError]

    /// `delayMs` applies to every frame (default 10 fps), unless `delaysMs` gives each frame its
    /// own (one per frame kept); `frameLimit` keeps the first N files.
    public init(files allFiles: [String], delayMs: Double = SpriteSheetSpec.defaultDelayMs, delaysMs: [Double]? = nil,
                frameLimit: Int? = nil,
                options: DecodeOptions = DecodeOptions(), warnings extraWarnings: [String] = []) throws(AnimatedError) {
        guard !allFiles.isEmpty else { throw .invalid("no images to play") }
        var files = allFiles
        if let frameLimit {
            guard frameLimit >= 1, frameLimit <= files.count else {
                throw .invalid("\(frameLimit) frames asked for, but there are \(files.count) images")
            }
            files.removeLast(files.count - frameLimit)
        }
        if let delaysMs, delaysMs.count != files.count {
            throw .invalid("\(delaysMs.count) delays given for \(files.count) frames: give one per frame")
        }
        if let delaysMs, let bad = delaysMs.first(where: { !($0 >= 1 && $0 <= 3_600_000) }) {
            throw .invalid("delay \(bad) ms is not 1 to 3600000 ms")
        }
        guard files.count <= options.limits.maxFrames else {
            throw .limitExceeded("\(files.count) images exceed the limit of \(options.limits.maxFrames) frames")
        }
        var sizes: [(width: Int, height: Int)] = []
        var errors: [Int: AnimatedError] = [:]
        var warnings = extraWarnings
        var animated = 0
        for (i, path) in files.enumerated() {
            do {
                let d = try AnimationLoader.open(path: path, options: options)
                sizes.append((d.info.width, d.info.height))
                if d.info.frameCount > 1 { animated += 1 }
            } catch {
                errors[i] = error
                sizes.append((0, 0))
                warnings.append("\(path): \(error)")
            }
        }
        if errors.count == files.count, let first = errors[0] { throw first.prefixed(files[0] + ": ") }
        let width = sizes.map(\.width).max()!, height = sizes.map(\.height).max()!
        try options.limits.check(width: width, height: height, workingCopies: 2)

        let distinct = Set(sizes.filter { $0.width > 0 }.map { $0.width << 32 | $0.height }).count
        if distinct > 1 {
            warnings.append("images differ in size (\(distinct) sizes): each is centred on the \(width)x\(height) canvas")
        }
        if animated > 0 { warnings.append("\(animated) images are animated: only their first frame is shown") }

        let placements = sizes.map {
            FrameRect(x: ($0.width == 0 ? 0 : (width - $0.width) / 2), y: ($0.height == 0 ? 0 : (height - $0.height) / 2),
                      width: $0.width, height: $0.height)
        }
        self.files = files
        self.options = options
        self.openErrors = errors
        let frames = IndependentFrames.infos(placements: placements, delaysMs: delaysMs ?? Array(repeating: delayMs, count: files.count),
                                             sources: files.map { FrameSource(file: $0) }, width: width, height: height)
        info = AnimationInfo(format: .frameSequence, width: width, height: height, frames: frames, plays: 0,
                             warnings: warnings, timing: TimingPolicy(browserMinimumDelay: false))
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

    /// Decodes the file's first frame and places it centred. A damaged file shows what
    /// decoded and throws, naming the file.
    public func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        let path = files[index]
        if let e = openErrors[index] { throw e.prefixed(path + ": ") }
        let rect = info.frames[index].rect
        let decoder: any AnimationDecoder
        do { decoder = try AnimationLoader.open(path: path, options: options) } catch { throw error.prefixed(path + ": ") }
        guard decoder.info.width == rect.width, decoder.info.height == rect.height else {
            throw .invalid("\(path): changed since it was opened (was \(rect.width)x\(rect.height), now \(decoder.info.width)x\(decoder.info.height))")
        }
        let image = Canvas(width: rect.width, height: rect.height)
        var problem: AnimatedError?
        do { try decoder.blend(frame: 0, onto: image) } catch { problem = error.prefixed(path + ": ") }
        Blend.image(UnsafePointer(image.pixels.baseAddress!), width: image.width, height: image.height,
                    srcStride: image.rowBytes, at: rect.x, rect.y, onto: canvas, op: .source)
        if let problem { throw problem }
    }
}

/// "1 subfolder", "2 subfolders".
private func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
