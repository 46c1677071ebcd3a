/// Frames drawn per second over a recent window (the status line's "effective fps").
struct FrameRateMeter {
    private static let capacity = 256
    private var times = [UInt64](repeating: 0, count: FrameRateMeter.capacity)
    private var count = 0
    private var next = 0

    mutating func record(_ time: UInt64) {
        times[next] = time
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Rate of the draws in the last `window` ns before `now`; 0 with fewer than two.
    func rate(at now: UInt64, window: UInt64 = 2_000_000_000) -> Double {
        var k = 0
        var oldest = UInt64.max, newest: UInt64 = 0
        var i = (next - 1 + Self.capacity) % Self.capacity
        while k < count {
            let t = times[i]
            if now > t && now - t > window { break }
            oldest = min(oldest, t); newest = max(newest, t)
            k += 1
            i = (i - 1 + Self.capacity) % Self.capacity
        }
        guard k >= 2, newest > oldest else { return 0 }
        return Double(k - 1) * 1e9 / Double(newest - oldest)
    }
}
