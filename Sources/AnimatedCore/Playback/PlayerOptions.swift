/// Playback order.
public enum PlaybackMode: String, Sendable, CaseIterable {
    /// First to last frame.
    case normal
    /// Last to first frame.
    case reverse
    /// First to last and back to first; one forward+backward trip is one play.
    case bounce
}

/// How to play (the `play` command's `--loop`, `--speed`, `--mode`, `--max-fps`, `--buffer-mb`).
public struct PlayerOptions: Sendable {
    /// Total plays; nil = the file's own count (`AnimationInfo.plays`); 0 = forever.
    public var plays: Int?
    /// Playback rate, clamped to 0.1–10.
    public var speed: Double
    /// Frame order: normal, reverse or bounce.
    public var mode: PlaybackMode
    /// Display-rate cap in frames per second: frames shorter than one tick are merged.
    /// 0 or less (or not finite) = no cap; a tick is at most an hour.
    public var maxFPS: Double
    /// Frame buffer budget in bytes (`--buffer-mb N` is N << 20); nil = memory-aware default
    /// (`MemoryBudget.systemDefault()`). A budget below one frame still plays, one frame at a time.
    public var bufferBytes: Int?

    /// Options; nil plays means the file's loop count.
    public init(plays: Int? = nil, speed: Double = 1, mode: PlaybackMode = .normal,
                maxFPS: Double = 60, bufferBytes: Int? = nil) {
        self.plays = plays; self.speed = speed; self.mode = mode
        self.maxFPS = maxFPS; self.bufferBytes = bufferBytes
    }

    /// Speeds outside this range are clamped.
    public static let speedRange: ClosedRange<Double> = 0.1...10
}
