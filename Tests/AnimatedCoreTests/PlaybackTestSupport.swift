import Testing
import Synchronization
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal
#if canImport(Glibc)
import Glibc
#endif

// Test doubles for the playback engine: synthetic decoders, an injected clock, a counting
// scaler, and a driver that plays by jumping the clock to each deadline (no sleeping).

/// A time source the test moves by hand.
final class ManualTime: TimeSource {
    private let value: Atomic<UInt64>
    init(_ start: UInt64 = 1_000_000_000) { value = Atomic(start) }
    func now() -> UInt64 { value.load(ordering: .sequentiallyConsistent) }
    func set(_ t: UInt64) { value.store(t, ordering: .sequentiallyConsistent) }
    func advance(ms: Double) { set(now() + UInt64(ms * 1_000_000)) }
}

/// Counts calls per frame index from any thread.
final class CallCounter: Sendable {
    private let counts: Mutex<[Int]>
    init(_ n: Int) { counts = Mutex([Int](repeating: 0, count: n)) }
    func record(_ i: Int) { counts.withLock { $0[i] += 1 } }
    var perFrame: [Int] { counts.withLock { $0 } }
    var total: Int { perFrame.reduce(0, +) }
}

func ms(_ v: Double) -> UInt64 { UInt64(v * 1_000_000) }

/// Colour identifying frame k (k < 65536).
func colour(_ k: Int) -> (UInt8, UInt8, UInt8) {
    (UInt8(k & 255), UInt8((k >> 8) & 255), 0x5A)
}

/// Every frame fills the whole canvas with `colour(k)` (so every frame is a keyframe).
final class SolidDecoder: AnimationDecoder {
    let info: AnimationInfo
    let decodes: CallCounter

    init(delaysMs: [Double], width: Int = 8, height: Int = 8, plays: Int = 1) {
        let frames = delaysMs.map {
            FrameInfo(rect: FrameRect(x: 0, y: 0, width: width, height: height), delayMs: $0,
                      dispose: .none, blend: .source, hasAlpha: false)
        }
        info = AnimationInfo(format: .gif, width: width, height: height, frames: frames, plays: plays,
                             timing: TimingPolicy(browserMinimumDelay: false))
        decodes = CallCounter(frames.count)
    }

    convenience init(frames: Int, delayMs: Double = 100, width: Int = 8, height: Int = 8, plays: Int = 1) {
        self.init(delaysMs: Array(repeating: delayMs, count: frames), width: width, height: height, plays: plays)
    }

    func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        decodes.record(index)
        let (r, g, b) = colour(index)
        var i = 0
        while i < canvas.pixels.count {
            canvas.pixels[i] = r; canvas.pixels[i + 1] = g; canvas.pixels[i + 2] = b; canvas.pixels[i + 3] = 255
            i += 4
        }
    }

    /// The frame a scaled frame of this decoder shows.
    static func index(of frame: ScaledFrame) -> Int {
        Int(frame.pixels[0]) | Int(frame.pixels[1]) << 8
    }
}

/// Frame k adds one opaque pixel of `colour(k)` at (k % width, k / width) over what is there:
/// only frame 0 is a keyframe, so frame k's canvas holds pixels 0…k, and a skipped or
/// out-of-order blend shows.
final class TrailDecoder: AnimationDecoder {
    let info: AnimationInfo
    let decodes: CallCounter

    init(frames n: Int, delayMs: Double = 100, width: Int = 16, plays: Int = 1) {
        let height = (n + width - 1) / width
        let frames = (0..<n).map { k in
            FrameInfo(rect: FrameRect(x: k % width, y: k / width, width: 1, height: 1), delayMs: delayMs,
                      dispose: .none, blend: .over, hasAlpha: false)
        }
        info = AnimationInfo(format: .apng, width: width, height: height, frames: frames, plays: plays,
                             timing: TimingPolicy(browserMinimumDelay: false))
        decodes = CallCounter(n)
    }

    func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        decodes.record(index)
        let (r, g, b) = colour(index)
        let o = index * 4        // (k % w, k / w) is pixel k of the row-major canvas
        canvas.pixels[o] = r; canvas.pixels[o + 1] = g; canvas.pixels[o + 2] = b; canvas.pixels[o + 3] = 255
    }

    /// The frame a scaled (same-size) frame shows, or nil if its pixels are not exactly
    /// frames 0…k composited in order.
    static func index(of frame: ScaledFrame) -> Int? {
        let px = frame.pixels
        var k = -1
        while (k + 1) * 4 < px.count && px[(k + 1) * 4 + 3] == 255 { k += 1 }
        guard k >= 0 else { return nil }
        for j in 0...k {
            let (r, g, b) = colour(j)
            if px[j * 4] != r || px[j * 4 + 1] != g || px[j * 4 + 2] != b { return nil }
        }
        for j in stride(from: (k + 1) * 4 + 3, to: px.count, by: 4) where px[j] != 0 { return nil }
        return k
    }
}

/// Nearest-neighbour scaling that counts calls per frame.
struct CountingScaler: FrameScaler {
    let calls: CallCounter
    init(frames: Int) { calls = CallCounter(frames) }
    func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        calls.record(index)
        return NearestScaler().scale(canvas, index: index, to: size)
    }
}

/// Nearest-neighbour scaling whose frame 0 carries three frames' bytes more (a payload),
/// marked as of untypical size or not.
struct LargeFirstFrameScaler: FrameScaler {
    let typical: Bool
    func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        let frame = NearestScaler().scale(canvas, index: index, to: size)
        guard index == 0 else { return frame }
        return ScaledFrame(index: 0, size: size, pixels: frame.pixels,
                           payload: [UInt8](repeating: 0, count: 3 * frame.pixels.count), typicalSize: typical)
    }
}

/// `update()`, and if the frame to show is not buffered yet, wait for the producer (a condition
/// wait, not a sleep; the injected clock does not move) and update again.
func settle(_ player: Player, sourceLocation: SourceLocation = #_sourceLocation) -> PlayerUpdate {
    var u = player.update()
    var tries = 0
    while u.waiting && u.error == nil && tries < 1000 {
        #expect(player.waitUntilBuffered(timeoutNanoseconds: 20_000_000_000),
                "producer never caught up", sourceLocation: sourceLocation)
        u = player.update()
        tries += 1
    }
    return u
}

/// What a run of the player drew: frame ids, and the clock time of each draw.
struct Run {
    var frames: [Int] = []
    var times: [UInt64] = []
    var finished = false
    var last: PlayerUpdate?
}

/// Plays by moving the clock to each deadline until finished or `maxDraws` draws.
func play(_ player: Player, _ time: ManualTime, maxDraws: Int = 100_000,
          id: (ScaledFrame) -> Int? = { SolidDecoder.index(of: $0) }) -> Run {
    var run = Run()
    var u = settle(player)
    while true {
        if let f = u.frame {
            run.frames.append(id(f) ?? -1)
            run.times.append(time.now())
        }
        if u.finished || run.frames.count >= maxDraws { break }
        guard let d = u.nextDeadline else { break }
        time.set(max(d, time.now()))
        u = settle(player)
    }
    run.finished = u.finished
    run.last = u
    return run
}

func makePlayer(_ decoder: sending any AnimationDecoder, _ options: PlayerOptions = PlayerOptions(),
                size: RenderSize? = nil, time: ManualTime,
                scaler: any FrameScaler = NearestScaler()) throws -> Player {
    let info = decoder.info
    return try Player(decoder: decoder, options: options, scaler: scaler,
                      renderSize: size ?? RenderSize(width: info.width, height: info.height), time: time)
}

/// Nearest-neighbour scaling that holds every frame until the test opens the gate (a
/// condition wait on the producer thread: the test decides when a frame can arrive).
final class GatedScaler: FrameScaler {
    private let gate = Monitor(false)
    func open() {
        gate.withLock { $0 = true }
        gate.broadcast()
    }
    func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        _ = gate.wait { open -> MonitorStep<Bool> in open ? .done(true) : .sleep(notify: false) }
        return NearestScaler().scale(canvas, index: index, to: size)
    }
}

/// Whether `fd` is readable within `timeoutMs` (0: now).
func readable(_ fd: Int32, timeoutMs: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, timeoutMs) == 1 && p.revents & Int16(POLLIN) != 0
}
