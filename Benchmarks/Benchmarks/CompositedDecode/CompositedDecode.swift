import AnimatedCore
import Benchmark
#if canImport(Glibc)
import Glibc
#endif

// Composited decode: open the file and composite every frame in order, as `animplay info
// --decode` and playback do. Inputs come from ../make-inputs.sh (ffmpeg testsrc2).
//
// Besides wall clock and peak RSS, each iteration reports its throughput in composited canvas
// megapixels per second ("Mpx/s", width x height x frames / seconds).

/// Benchmarks/data, or $ANIMPLAY_BENCH_DATA.
private func dataDirectory() -> String {
    if let dir = getenv("ANIMPLAY_BENCH_DATA") { return String(cString: dir) }
    // #filePath is .../Benchmarks/Benchmarks/CompositedDecode/CompositedDecode.swift.
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/") + "/data"
}

private let megapixelsPerSecond = BenchmarkMetric.custom("Throughput (Mpx/s)", polarity: .prefersLarger, useScalingFactor: false)

/// Opens `path` and composites every frame; returns the canvas megapixels decoded.
private func decodeAll(_ path: String) throws -> Double {
    let decoder = try AnimationLoader.open(path: path)
    let compositor = try Compositor(decoder: decoder)
    let info = decoder.info
    for i in 0..<info.frameCount { blackHole(compositor.frame(at: i)) }
    if !compositor.problems.isEmpty {
        throw BenchmarkInputError(message: "\(compositor.problems.count) frames failed to decode")
    }
    return Double(info.width * info.height * info.frameCount) / 1e6
}

private struct BenchmarkInputError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

private func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .peakMemoryResident, megapixelsPerSecond],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 10
    )
    let data = dataDirectory()
    for input in ["640x360x150", "1280x720x300"] {
        for (format, ext) in [("GIF", "gif"), ("APNG", "apng"), ("WebP", "webp")] {
            let path = "\(data)/testsrc2-\(input).\(ext)"
            Benchmark("\(format) \(input)") { benchmark in
                guard access(path, R_OK) == 0 else {
                    benchmark.error("\(path) is missing: run Benchmarks/make-inputs.sh")
                    return
                }
                for _ in benchmark.scaledIterations {
                    let t0 = now()
                    let megapixels = try decodeAll(path)
                    benchmark.measurement(megapixelsPerSecond, Int((megapixels / max(now() - t0, 1e-9)).rounded()))
                }
            }
        }
    }
}
