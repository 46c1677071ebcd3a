import AnimatedCore

/// What every image harness does with one input: open it with a small budget, composite every
/// frame in order, then replay the last frame from its keyframe on a fresh compositor.
///
/// The limits are small so that the fuzzer spends its time on parsing and decoding paths, not on
/// clearing huge canvases; they are still checked the same way as the defaults.
enum FuzzSupport {
    static let limits = DecodeLimits(maxDimension: 1024, maxPixels: 1 << 18, maxFrames: 1024,
                                     maxDecodedBytes: 16 << 20)
    static let options = DecodeOptions(limits: limits)
    /// Frames composited per input (a 1024-frame file still runs in milliseconds).
    static let maxFrames = 256

    static func exercise(_ data: UnsafePointer<UInt8>, _ size: Int,
                         open: (ByteSource) throws(AnimatedError) -> any AnimationDecoder) {
        let source = ByteSource(bytes: UnsafeBufferPointer(start: data, count: size))
        guard let decoder = try? open(source) else { return }
        let info = decoder.info
        // Headers that passed must respect the limits: anything else is a missed check.
        precondition(info.width > 0 && info.height > 0, "empty canvas accepted")
        precondition(info.width <= limits.maxDimension && info.height <= limits.maxDimension, "side limit bypassed")
        precondition(info.width * info.height <= limits.maxPixels, "pixel limit bypassed")
        precondition(info.frameCount <= limits.maxFrames, "frame limit bypassed")
        guard let sequential = try? Compositor(decoder: decoder) else { return }
        let last = min(info.frameCount, maxFrames) - 1
        for i in 0...last { sequential.frame(at: i) }
        let forward = sequential.canvas.snapshot()

        // Random access replays from the nearest keyframe; it must give the same pixels
        // (only checked for clean files: a corrupt frame drawn partly may differ by design).
        guard let replay = try? Compositor(decoder: decoder) else { return }
        replay.frame(at: last)
        if sequential.problems.isEmpty && replay.problems.isEmpty && info.warnings.isEmpty {
            precondition(replay.canvas.snapshot() == forward, "keyframe replay differs from sequential compositing")
        }
        if last > 0 { replay.frame(at: 0) }
    }
}
