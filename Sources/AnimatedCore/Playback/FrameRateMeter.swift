/// Frames shown per second over the last `capacity` frames playback showed (the status line's
/// "effective fps"). A window of frames rather than of time: 3 s frames read 0.3 fps, not 0
/// for want of two draws in a time window. The player records only frames that playback
/// advanced to: redraws of the same frame (resizes) and steps while paused are not frames
/// shown at a rate, and a pause starts the window afresh.
struct FrameRateMeter {
    static let capacity = 16
    private var times = [UInt64](repeating: 0, count: FrameRateMeter.capacity)
    private var count = 0
    private var next = 0

    mutating func record(_ time: UInt64) {
        times[next] = time
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Forgets the window (after a pause, a stop or a jump: the gap is not playback).
    mutating func reset() { count = 0 }

    /// Rate over the recorded frames; 0 with fewer than two.
    var rate: Double {
        guard count >= 2 else { return 0 }
        let newest = times[(next - 1 + Self.capacity) % Self.capacity]
        let oldest = times[(next - count + Self.capacity) % Self.capacity]
        guard newest > oldest else { return 0 }
        return Double(count - 1) * 1e9 / Double(newest - oldest)
    }
}
