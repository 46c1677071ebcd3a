/// Playback order.
public enum PlaybackMode: String, Sendable, CaseIterable {
    case normal, reverse, bounce
}

public struct PlayerOptions: Sendable {
    /// Total plays; nil = the file's own count; 0 = forever.
    public var plays: Int?
    /// Playback rate, 0.1–10.
    public var speed: Double
    public var mode: PlaybackMode
    /// Display-rate cap: frames shorter than one tick are merged.
    public var maxFPS: Double
    /// Frame buffer budget in bytes; nil = memory-aware default.
    public var bufferBytes: Int?

    public init(plays: Int? = nil, speed: Double = 1, mode: PlaybackMode = .normal,
                maxFPS: Double = 60, bufferBytes: Int? = nil) {
        self.plays = plays; self.speed = speed; self.mode = mode
        self.maxFPS = maxFPS; self.bufferBytes = bufferBytes
    }
}

/// What a status line shows.
public struct PlayerStatus: Sendable {
    public var frameIndex: Int
    public var frameCount: Int
    /// 1-based number of the current play.
    public var play: Int
    /// Total plays; 0 = forever.
    public var plays: Int
    public var effectiveFPS: Double
    public var droppedFrames: Int
    public var speed: Double
    public var mode: PlaybackMode
    public var paused: Bool
    public var finished: Bool
    public var bufferBytes: Int
    public var bufferBudget: Int
    public var framesCached: Int
}

/// A monotonic time source in nanoseconds (injected in tests).
public protocol TimeSource: Sendable {
    func now() -> UInt64
}

public struct SystemTimeSource: TimeSource {
    public init() {}
    public func now() -> UInt64 { MonotonicClock.nanoseconds() }
}

/// What the screen should do after `Player.update()`.
public struct PlayerUpdate: Sendable {
    /// A frame to draw, or nil if what is on screen is still current.
    public var frame: ScaledFrame?
    /// When `update()` should be called again (monotonic ns); nil when paused or finished.
    public var nextDeadline: UInt64?
    /// True once the last play has ended (the last frame stays displayed).
    public var finished: Bool
}

/// Plays an animation: schedule, plays, modes, pause/step/seek, speed, and scaled frames.
///
/// Used from one thread (the screen's). This first version composites and scales on demand
/// on the calling thread; the frame buffer replaces that with background prefetch.
public final class Player {
    public let info: AnimationInfo
    private let compositor: Compositor
    private let scaler: any FrameScaler
    private let time: any TimeSource
    private var options: PlayerOptions
    private var renderSize: RenderSize

    private var order: [Int] = []       // frame indices of one play, in display order
    private var position = 0            // index into `order`
    private var playIndex = 0           // 0-based current play
    private var frameStart: UInt64 = 0  // when the current frame was due
    private var paused = false
    private var finished = false
    private var needsDraw = true
    private var dropped = 0

    public init(decoder: any AnimationDecoder, options: PlayerOptions, scaler: any FrameScaler,
                renderSize: RenderSize, time: any TimeSource = SystemTimeSource()) throws(AnimatedError) {
        self.info = decoder.info
        self.compositor = try Compositor(decoder: decoder)
        self.scaler = scaler
        self.time = time
        self.options = options
        self.renderSize = renderSize
        rebuildOrder()
        frameStart = time.now()
    }

    private var totalPlays: Int { options.plays ?? info.plays }

    private func rebuildOrder() {
        let n = info.frameCount
        switch options.mode {
        case .normal: order = Array(0..<n)
        case .reverse: order = Array((0..<n).reversed())
        case .bounce: order = n > 1 ? Array(0..<n) + Array((1..<(n - 1)).reversed()) : [0]
        }
    }

    private func duration(ofPosition p: Int) -> UInt64 {
        let ms = info.displayMs(at: order[p]) / options.speed
        return UInt64(max(ms, 1) * 1_000_000)
    }

    public func update() -> PlayerUpdate {
        let now = time.now()
        if !paused && !finished {
            var advanced = 0
            while now >= frameStart + duration(ofPosition: position) {
                let next = frameStart + duration(ofPosition: position)
                if position + 1 < order.count {
                    position += 1
                } else if totalPlays == 0 || playIndex + 1 < totalPlays {
                    playIndex += 1; position = 0
                } else {
                    finished = true
                    break
                }
                frameStart = next
                advanced += 1
            }
            if advanced > 0 { needsDraw = true; dropped += advanced - 1 }
        }
        var frame: ScaledFrame?
        if needsDraw {
            let idx = order[position]
            frame = scaler.scale(compositor.frame(at: idx), index: idx, to: renderSize)
            needsDraw = false
        }
        let deadline: UInt64? = (paused || finished) ? nil : frameStart + duration(ofPosition: position)
        return PlayerUpdate(frame: frame, nextDeadline: deadline, finished: finished)
    }

    public func togglePause() {
        if paused { frameStart = time.now() }   // resume: the current frame gets its full time again
        paused.toggle()
    }

    public func step(_ delta: Int) {
        guard paused else { return }
        position = ((position + delta) % order.count + order.count) % order.count
        needsDraw = true
    }

    public func setSpeed(_ speed: Double) {
        options.speed = min(10, max(0.1, speed))
        frameStart = time.now()
    }

    public func toggleReverse() {
        let idx = order[position]
        options.mode = options.mode == .reverse ? .normal : .reverse
        rebuildOrder()
        position = order.firstIndex(of: idx) ?? 0
    }

    public func restart() {
        position = 0; playIndex = 0; finished = false; frameStart = time.now(); needsDraw = true
    }

    public func seek(to frame: Int) {
        position = order.firstIndex(of: min(max(0, frame), info.frameCount - 1)) ?? 0
        frameStart = time.now(); needsDraw = true
    }

    public func resize(to size: RenderSize) {
        renderSize = size; needsDraw = true
    }

    public var status: PlayerStatus {
        PlayerStatus(frameIndex: order[position], frameCount: info.frameCount, play: playIndex + 1,
                     plays: totalPlays, effectiveFPS: 0, droppedFrames: dropped, speed: options.speed,
                     mode: options.mode, paused: paused, finished: finished, bufferBytes: 0,
                     bufferBudget: 0, framesCached: 0)
    }

    public func stop() {}
}
