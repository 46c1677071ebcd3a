/// What a status line shows.
public struct PlayerStatus: Sendable {
    /// Frame on screen (or about to be).
    public var frameIndex: Int
    /// Frames in the animation.
    public var frameCount: Int
    /// 1-based number of the current play.
    public var play: Int
    /// Total plays; 0 = forever.
    public var plays: Int
    /// Frames shown per second, over the last frames playback advanced to (see `FrameRateMeter`).
    public var effectiveFPS: Double
    /// Frames skipped because the display was late (not counting `mergedFrames`).
    public var droppedFrames: Int
    /// Playback speed factor.
    public var speed: Double
    /// Frame order.
    public var mode: PlaybackMode
    /// True while paused.
    public var paused: Bool
    /// True once the last play has ended.
    public var finished: Bool
    /// Bytes of scaled frames in the buffer, and its budget.
    public var bufferBytes: Int
    /// The frame buffer's memory budget, in bytes.
    public var bufferBudget: Int
    /// Scaled frames held by the buffer.
    public var framesCached: Int
    /// Frames skipped on purpose because they were shorter than one display tick (`maxFPS`).
    public var mergedFrames: Int = 0
    /// Frames decoded and composited so far (replays included), and frames scaled.
    public var framesDecoded: Int = 0
    /// Frames scaled so far.
    public var framesScaled: Int = 0
    /// The schedule is held until the buffer delivers the current frame.
    public var waiting: Bool = false
}

/// What the screen should do after `Player.update()`.
public struct PlayerUpdate: Sendable {
    /// A frame to draw, or nil if what is on screen is still current.
    public var frame: ScaledFrame?
    /// When `update()` should be called again (monotonic ns). Nil when there is nothing to wait
    /// for: paused with the frame drawn, finished, or failed.
    public var nextDeadline: UInt64?
    /// True once the last play has ended (the last frame stays displayed).
    public var finished: Bool
    /// The frame to show is not buffered yet; the schedule waits for it and `nextDeadline` is
    /// a short poll.
    public var waiting: Bool = false
    /// The decoder could not be opened on the producer thread (factory init only).
    public var error: AnimatedError? = nil
}
