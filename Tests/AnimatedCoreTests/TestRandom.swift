import Foundation
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Seeded randomness for tests. Each test's seed is its name's hash, so every run draws the same
/// values (a test passes or fails the same way each time); ANIMPLAY_TEST_SEED replaces it, to
/// try other draws. The seed is printed and failure messages carry it.
struct TestRandom: RandomNumberGenerator, CustomStringConvertible {
    let seed: UInt64
    private var mix: SplitMix

    /// `name` labels the printed seed (the test's name).
    init(_ name: String) {
        let env = ProcessInfo.processInfo.environment["ANIMPLAY_TEST_SEED"].flatMap { UInt64($0) }
        self.init(seed: env ?? Self.seed(named: name), name: name)
    }

    /// FNV-1a of the name's UTF-8: fixed across runs, machines and toolchains (unlike `hashValue`).
    static func seed(named name: String) -> UInt64 {
        name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    init(seed: UInt64, name: String) {
        self.seed = seed
        mix = SplitMix(state: seed)
        print("\(name): random seed \(seed) (repeat with ANIMPLAY_TEST_SEED=\(seed))")
    }

    mutating func next() -> UInt64 { mix.next() }

    var description: String { "seed \(seed)" }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

/// Random orders of frame requests for one compositor: jumps anywhere, short steps back and
/// forth, repeats and runs forward, so that replays start from every kind of state.
enum RandomOrder {
    static func frames(count n: Int, steps: Int, using rng: inout TestRandom) -> [Int] {
        var out: [Int] = []
        var cur = Int.random(in: 0..<n, using: &rng)
        for _ in 0..<steps {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0, 1: cur = Int.random(in: 0..<n, using: &rng)                 // jump anywhere
            case 2: cur = max(0, cur - Int.random(in: 1...3, using: &rng))      // a little back
            case 3: cur = min(n - 1, cur + Int.random(in: 1...3, using: &rng))  // a little on
            case 4: cur = (cur + 1) % n                                         // next, wrapping
            default: break                                                      // same frame
            }
            out.append(cur)
        }
        return out
    }

    /// Drives ONE compositor through a random order and compares every frame with `expected`
    /// (sequential compositing). Returns the first difference, naming the seed and the path.
    static func check(_ comp: Compositor, expected: [[UInt8]], steps: Int, using rng: inout TestRandom) -> String? {
        let order = frames(count: expected.count, steps: steps, using: &rng)
        for (k, i) in order.enumerated() where comp.frame(at: i).snapshot() != expected[i] {
            return "frame \(i) differs from sequential decoding after requests \(order[..<k].suffix(12)) (\(rng))"
        }
        return nil
    }
}
