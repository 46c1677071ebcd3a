import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// Several FILE arguments played one after another (n/p keys), as opposed to the frames of one
/// animation (a frame sequence).
///
/// The rule (README "Several files"): files that are all still images of one canvas size are
/// the frames of one animation, as a folder's images are; anything else — an animation among
/// them, stills of different sizes, a URL or standard input — plays in turn. `--sequence` and
/// `--in-turn` force either reading.
struct Playlist {
    let names: [String]

    /// How long a still image stays on screen before the next file.
    static let stillMs: Double = 2000

    enum Reading { case sequence, inTurn }

    /// The reading of `files` (two or more) when no flag forces one. Opens each local file's
    /// headers (no pixels); a file that cannot be read counts as an animation, so that it plays
    /// (and fails) in turn, with its own error line.
    static func reading(of files: [String], options: DecodeOptions) -> Reading {
        var size: (Int, Int)?
        for name in files {
            if name == InputSource.stdinName || HTTPDownload.isURL(name) || ImageFolder.isDirectory(name) { return .inTurn }
            guard let info = try? AnimationLoader.open(ByteSource(path: name), options: options).info,
                  info.frameCount == 1 else { return .inTurn }
            if let size, size != (info.width, info.height) { return .inTurn }
            size = (info.width, info.height)
        }
        return .sequence
    }

    /// "2/5 name" for the status line; the name with control characters shown as `?` (it
    /// reaches the terminal).
    func label(_ index: Int) -> String {
        let safe = String(names[index].unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0) })
        return "\(index + 1)/\(names.count) \(safe)"
    }
}

/// A still image in a playlist: one frame shown for `Playlist.stillMs`, once.
final class HeldStill: AnimationDecoder {
    private let base: any AnimationDecoder
    let info: AnimationInfo

    init(_ base: any AnimationDecoder) {
        self.base = base
        var info = base.info
        info.frames[0].delayMs = Playlist.stillMs
        info.timing.frameMs = nil   // --fps retimes animations, not the pause on a still
        info.plays = 1
        self.info = info
    }

    func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        try base.blend(frame: index, onto: canvas)
    }
}
