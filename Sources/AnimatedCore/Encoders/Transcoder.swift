/// Composites an animation and feeds it to an encoder (`animplay convert`): a frame range, an
/// order (reverse, bounce), a speed factor and a resize, one frame in memory at a time.
public struct Transcoder {
    /// First and last frame (inclusive, clamped to the animation).
    public var range: ClosedRange<Int>?
    /// Order of the frames: normal, reverse, or bounce (there and back, the ends not repeated).
    public var mode: PlaybackMode = .normal
    /// Playback rate: durations are divided by it.
    public var speed: Double = 1
    /// Output size (area-average scaling in linear light); nil keeps the canvas size.
    public var size: RenderSize?
    /// What the output size may be: it is held to the decoding limits as a canvas is (a
    /// resize to 60000x60000 asked for 14 GB a frame).
    public var limits: DecodeLimits = .default

    /// A transcoder with no cached state.
    public init() {}

    /// The frame indexes in output order.
    public func order(frameCount: Int) -> [Int] {
        let lo = max(0, range?.lowerBound ?? 0), hi = min(frameCount - 1, range?.upperBound ?? frameCount - 1)
        guard lo <= hi else { return [] }
        let forward = Array(lo...hi)
        switch mode {
        case .normal: return forward
        case .reverse: return forward.reversed()
        case .bounce: return forward.count > 2 ? forward + forward.dropFirst().dropLast().reversed() : forward
        }
    }

    /// Up to `count` frames spread evenly over `indexes` (first and last included), in file
    /// order so that compositing them walks forward once.
    static func samples(of indexes: [Int], count: Int) -> [Int] {
        guard count > 0, !indexes.isEmpty else { return [] }
        if indexes.count <= count { return Array(Set(indexes)).sorted() }
        let step = Double(indexes.count - 1) / Double(max(1, count - 1))
        return Array(Set((0..<count).map { indexes[Int((Double($0) * step).rounded())] })).sorted()
    }

    /// Throws `limitExceeded` unless an output of `size` fits `limits` (a canvas, its scaled
    /// copy and the encoder's working frame).
    public static func checkOutput(_ size: RenderSize, _ limits: DecodeLimits) throws(AnimatedError) {
        do { try limits.check(width: size.width, height: size.height) } catch {
            throw .limitExceeded("output \(error.message)")
        }
    }

    /// Encodes the composited frames of `compositor` into `encoder` (which must be of the output
    /// size) and finishes it; `progress(done, total)` after each frame.
    public func run(_ compositor: Compositor, into encoder: any AnimationEncoder,
                    progress: (Int, Int) throws(AnimatedError) -> Void = { _, _ in }) throws(AnimatedError) {
        let info = compositor.info
        let indexes = order(frameCount: info.frameCount)
        guard !indexes.isEmpty else { throw .invalid("no frames in the range") }
        if let size { try Self.checkOutput(size, limits) }
        let scaler = AreaAverageScaler()
        let target = size.map { Canvas(width: $0.width, height: $0.height) }
        func frame(_ i: Int) -> Canvas {
            let canvas = compositor.frame(at: i)
            guard let size, let target, size.width != canvas.width || size.height != canvas.height else { return canvas }
            let scaled = scaler.scale(canvas, index: i, to: size)
            _ = scaled.pixels.withUnsafeBufferPointer { target.pixels.update(fromContentsOf: $0) }
            return target
        }
        for i in Self.samples(of: indexes, count: encoder.wantedSamples) { try encoder.addSample(frame(i)) }
        for (n, i) in indexes.enumerated() {
            try encoder.add(frame(i), durationMs: info.displayMs(at: i) / speed)
            try progress(n + 1, indexes.count)
        }
        try encoder.finish()
    }
}
