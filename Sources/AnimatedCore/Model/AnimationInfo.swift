/// Container format, as sniffed from the bytes (never from the file name). A struct rather
/// than an enum so that a coder registered by a library user can name its own format
/// (`ImageFormat("ppm")`); `rawValue` is what `info` prints.
public struct ImageFormat: RawRepresentable, Hashable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A format named `rawValue` (a registered coder's own format, e.g. "pnm").
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let gif = ImageFormat("gif")
    public static let apng = ImageFormat("apng")
    public static let png = ImageFormat("png")
    public static let webp = ImageFormat("webp")
    public static let jpeg = ImageFormat("jpeg")
    public static let avif = ImageFormat("avif")
    /// Frames cut from one still image (`--sprite`, an atlas).
    public static let spriteSheet = ImageFormat("sprite-sheet")
    /// A folder of images played as frames.
    public static let frameSequence = ImageFormat("frame-sequence")
}

/// What happens to a frame's rectangle after it has been shown.
public enum DisposeOp: String, Sendable {
    /// Left as drawn.
    case none
    /// Cleared to transparent.
    case background
    /// Restored to what it was before the frame was drawn.
    case previous
}

/// How a frame's pixels combine with the canvas.
public enum BlendOp: String, Sendable {
    /// The frame's pixels replace the canvas's, alpha included.
    case source
    /// The frame is composited over the canvas (alpha blending).
    case over
}

/// A width and a height, in pixels.
package struct ImageSize: Sendable, Equatable, CustomStringConvertible {
    package var width: Int, height: Int
    package init(width: Int, height: Int) { self.width = width; self.height = height }
    /// `WxH`.
    package var description: String { "\(width)x\(height)" }
}

/// A rectangle in canvas pixels; `description` is ImageMagick's geometry, `WxH+X+Y`.
public struct FrameRect: Sendable, Equatable, CustomStringConvertible {
    /// Top-left corner and size, in pixels.
    public var x: Int, y: Int, width: Int, height: Int
    /// The rectangle at (`x`, `y`) of `width`×`height` pixels.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    /// True when it holds no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    /// The part of this rect that lies inside a `width`×`height` canvas (may be empty).
    public func clipped(toWidth w: Int, height h: Int) -> FrameRect {
        let x0 = max(0, min(x, w)), y0 = max(0, min(y, h))
        let x1 = max(x0, min(x &+ width, w)), y1 = max(y0, min(y &+ height, h))
        return FrameRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
    /// True when it covers all of a `w`×`h` canvas.
    public func covers(width w: Int, height h: Int) -> Bool {
        x <= 0 && y <= 0 && x + width >= w && y + height >= h
    }
    /// `WxH+X+Y`.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// Everything known about one frame without decoding its pixels.
public struct FrameInfo: Sendable {
    /// The frame rectangle as stored in the file (not clipped).
    public var rect: FrameRect
    /// The delay stored in the file, in milliseconds.
    public var delayMs: Double
    /// What happens to the rectangle after the frame is shown.
    public var dispose: DisposeOp
    /// How the frame's pixels combine with the canvas.
    public var blend: BlendOp
    /// False only when the frame is known to be fully opaque (lets it be a keyframe under OVER).
    public var hasAlpha: Bool
    /// Set by `KeyframeAnalysis`: replaying from a transparent canvas at this frame gives the
    /// same pixels as compositing every frame from the start.
    package var keyframe: Bool = false
    /// Sprite sheets and frame sequences: where the frame's pixels come from (nil for codecs).
    package var source: FrameSource? = nil

    /// A frame as a codec indexes it.
    public init(rect: FrameRect, delayMs: Double, dispose: DisposeOp, blend: BlendOp, hasAlpha: Bool) {
        self.rect = rect; self.delayMs = delayMs; self.dispose = dispose; self.blend = blend
        self.hasAlpha = hasAlpha
    }
}

/// How stored delays become display delays.
public struct TimingPolicy: Sendable, Equatable {
    /// Browsers show frames with a stored delay of 10 ms or less for 100 ms.
    public var browserMinimumDelay: Bool
    /// Retiming: every frame is shown this long, whatever its stored delay (`--fps`/`--delay`
    /// on an animation). Nil: the stored delays.
    public var frameMs: Double?
    /// The policy; by default, as browsers.
    public init(browserMinimumDelay: Bool = true, frameMs: Double? = nil) {
        self.browserMinimumDelay = browserMinimumDelay; self.frameMs = frameMs
    }
    /// How long a frame with a stored delay of `stored` ms is shown.
    public func displayMs(_ stored: Double) -> Double {
        if let frameMs { return frameMs }
        return browserMinimumDelay && stored <= 10 ? 100 : stored
    }
}

/// The whole animation as described by its headers: the `YYAnimatedImage` surface plus
/// what `animplay info` reports.
public struct AnimationInfo: Sendable {
    /// The container format.
    public var format: ImageFormat
    /// Canvas width in pixels.
    public var width: Int
    /// Canvas height in pixels.
    public var height: Int
    /// Every frame, in file order.
    public var frames: [FrameInfo]
    /// Total number of plays; 0 = forever.
    public var plays: Int
    /// Problems found while indexing (truncation, ignored chunks, ...). Empty for a clean file.
    public var warnings: [String]
    /// How stored delays become display delays.
    public var timing: TimingPolicy
    /// The data is still arriving (a pipe, a download): more frames may follow, and the frame
    /// count, duration and plays are what is known so far.
    package var provisional = false
    /// A still larger than the limits, decoded straight to the smaller `width`×`height`: its
    /// own size (after orientation). Nil when decoded at full size.
    package var scaledFrom: ImageSize? = nil
    /// The EXIF orientation applied to a still (nil: none stored, or not a format that has one).
    public var orientation: ExifOrientation? = nil

    /// An animation; marks the frames a replay can start from (`FrameInfo.keyframe`).
    public init(format: ImageFormat, width: Int, height: Int, frames: [FrameInfo], plays: Int,
                warnings: [String] = [], timing: TimingPolicy = TimingPolicy()) {
        self.format = format; self.width = width; self.height = height
        self.frames = frames; self.plays = plays; self.warnings = warnings; self.timing = timing
        KeyframeAnalysis.mark(&self.frames, width: width, height: height)
    }

    /// Number of frames.
    public var frameCount: Int { frames.count }
    /// How long frame `index` is shown, in milliseconds.
    public func displayMs(at index: Int) -> Double { timing.displayMs(frames[index].delayMs) }
    /// One play, in milliseconds of display time.
    public var durationMs: Double { frames.indices.reduce(0) { $0 + displayMs(at: $1) } }
    /// Bytes of one composited RGBA canvas.
    package var bytesPerFrame: Int { width * height * 4 }
}
