@testable import AnimatedCore

/// What every image harness does with one input: open it with a small budget, composite every
/// frame in order, then drive one compositor through a random order of requests.
///
/// The limits are small so that the fuzzer spends its time on parsing and decoding paths, not on
/// clearing huge canvases; they are still checked the same way as the defaults.
package enum FuzzSupport {
    package static let limits = DecodeLimits(maxDimension: 1024, maxPixels: 1 << 18, maxFrames: 1024,
                                             maxDecodedBytes: 16 << 20)
    package static let options = DecodeOptions(limits: limits)
    /// Frames composited per input (a 1024-frame file still runs in milliseconds).
    package static let maxFrames = 256

    package static func exercise(_ data: UnsafePointer<UInt8>, _ size: Int,
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
        let count = min(info.frameCount, maxFrames)
        var hashes: [UInt64] = []
        for i in 0..<count { hashes.append(hash(sequential.frame(at: i))) }

        // ONE compositor through a random order (jumps anywhere, steps back and on, repeats):
        // each frame must equal sequential compositing, damaged files included (a damaged
        // keyframe is drawn alone either way). The order is seeded from the input's bytes, so a
        // crash file replays the same order; the seed is in the failure message.
        guard let random = try? Compositor(decoder: decoder) else { return }
        let seed = fnv(UnsafeBufferPointer(start: data, count: size))
        var rng = SplitMix64(state: seed)
        var cur = count - 1
        var path: [Int] = []
        for _ in 0..<min(2 * count + 2, 48) {
            switch rng.next() % 6 {
            case 0, 1: cur = Int(rng.next() % UInt64(count))
            case 2: cur = max(0, cur - 1 - Int(rng.next() % 3))
            case 3: cur = min(count - 1, cur + 1 + Int(rng.next() % 3))
            case 4: cur = (cur + 1) % count
            default: break
            }
            path.append(cur)
            let h = hash(random.frame(at: cur))
            precondition(h == hashes[cur], "frame \(cur) after requests \(path.suffix(12)) differs from sequential compositing (order seed \(seed))")
        }
    }

    /// FNV-1a over bytes: the canvas fingerprint, and the seed of the request order.
    package static func fnv(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }

    package static func hash(_ canvas: Canvas) -> UInt64 { canvas.withUnsafeBytes { fnv($0.assumingMemoryBound(to: UInt8.self)) } }
}

/// SplitMix64: a small deterministic generator.
package struct SplitMix64 {
    package var state: UInt64
    package init(state: UInt64) { self.state = state }
    package mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
