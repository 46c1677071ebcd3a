/// Container format, as sniffed from the bytes (never from the file name).
public enum ImageFormat: String, Sendable {
    case gif, apng, png, webp
    case spriteSheet = "sprite-sheet"
    case frameSequence = "frame-sequence"
}

/// What happens to a frame's rectangle after it has been shown.
public enum DisposeOp: String, Sendable {
    case none, background, previous
}

/// How a frame's pixels combine with the canvas.
public enum BlendOp: String, Sendable {
    case source, over
}

public struct FrameRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    /// The part of this rect that lies inside a `width`×`height` canvas (may be empty).
    public func clipped(toWidth w: Int, height h: Int) -> FrameRect {
        let x0 = max(0, min(x, w)), y0 = max(0, min(y, h))
        let x1 = max(x0, min(x &+ width, w)), y1 = max(y0, min(y &+ height, h))
        return FrameRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
    public func covers(width w: Int, height h: Int) -> Bool {
        x <= 0 && y <= 0 && x + width >= w && y + height >= h
    }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// Everything known about one frame without decoding its pixels.
public struct FrameInfo: Sendable {
    /// The frame rectangle as stored in the file (not clipped).
    public var rect: FrameRect
    /// The delay stored in the file, in milliseconds.
    public var delayMs: Double
    public var dispose: DisposeOp
    public var blend: BlendOp
    /// False only when the frame is known to be fully opaque (lets it be a keyframe under OVER).
    public var hasAlpha: Bool
    /// Set by `KeyframeAnalysis`: replaying from a transparent canvas at this frame gives the
    /// same pixels as compositing every frame from the start.
    public var keyframe: Bool = false
    /// Sprite sheets and frame sequences: where the frame's pixels come from (nil for codecs).
    public var source: FrameSource? = nil

    public init(rect: FrameRect, delayMs: Double, dispose: DisposeOp, blend: BlendOp, hasAlpha: Bool) {
        self.rect = rect; self.delayMs = delayMs; self.dispose = dispose; self.blend = blend
        self.hasAlpha = hasAlpha
    }
}

/// How stored delays become display delays.
public struct TimingPolicy: Sendable, Equatable {
    /// Browsers show frames with a stored delay of 10 ms or less for 100 ms.
    public var browserMinimumDelay: Bool
    public init(browserMinimumDelay: Bool = true) { self.browserMinimumDelay = browserMinimumDelay }
    public func displayMs(_ stored: Double) -> Double {
        browserMinimumDelay && stored <= 10 ? 100 : stored
    }
}

/// The whole animation as described by its headers: the `YYAnimatedImage` surface plus
/// what `animplay info` reports.
public struct AnimationInfo: Sendable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var frames: [FrameInfo]
    /// Total number of plays; 0 = forever.
    public var plays: Int
    /// Problems found while indexing (truncation, ignored chunks, ...). Empty for a clean file.
    public var warnings: [String]
    public var timing: TimingPolicy
    /// The data is still arriving (a pipe, a download): more frames may follow, and the frame
    /// count, duration and plays are what is known so far.
    public var provisional = false

    public init(format: ImageFormat, width: Int, height: Int, frames: [FrameInfo], plays: Int,
                warnings: [String] = [], timing: TimingPolicy = TimingPolicy()) {
        self.format = format; self.width = width; self.height = height
        self.frames = frames; self.plays = plays; self.warnings = warnings; self.timing = timing
        KeyframeAnalysis.mark(&self.frames, width: width, height: height)
    }

    public var frameCount: Int { frames.count }
    public func displayMs(at index: Int) -> Double { timing.displayMs(frames[index].delayMs) }
    public var durationMs: Double { frames.indices.reduce(0) { $0 + displayMs(at: $1) } }
    /// Bytes of one composited RGBA canvas.
    public var bytesPerFrame: Int { width * height * 4 }
}
