import Testing
@testable import AnimatedCore

@Suite struct DecodeLimitsTests {
    /// Limits raised as far as they go (`--max-pixels` and `--max-dimension` 9223372036854775807,
    /// or a library's Int.max) met a PNG of 2^31-1 a side: the bytes it needs overflowed, a trap.
    @Test func limitsAtIntMaxNeverOverflow() {
        let open = DecodeLimits(maxDimension: .max, maxPixels: .max, maxFrames: .max, maxDecodedBytes: .max)
        #expect(throws: AnimatedError.limitExceeded("canvas 2147483647x2147483647 needs more bytes than a count holds, limit 8796093022208 MiB")) {
            try open.check(width: 2_147_483_647, height: 2_147_483_647)
        }
        #expect(throws: Never.self) { try open.check(width: 65535, height: 65535) }
        #expect(DecodeLimits.size(.max) == "8796093022208 MiB" && DecodeLimits.size((1 << 20) + 1) == "2 MiB")
    }

    /// A canvas under a MiB is measured in KiB, rounded up: never "needs 0 MiB, limit 0 MiB".
    @Test func memoryMessagesNeverRoundToZero() {
        let small = DecodeLimits(maxDimension: 1000, maxPixels: 1 << 20, maxFrames: 10, maxDecodedBytes: 100 << 10)
        #expect(throws: AnimatedError.limitExceeded("canvas 96x96 needs 108 KiB, limit 100 KiB")) {
            try small.check(width: 96, height: 96)
        }
        let large = DecodeLimits(maxDimension: 10000, maxPixels: 1 << 26, maxFrames: 10, maxDecodedBytes: 8 << 20)
        #expect(throws: AnimatedError.limitExceeded("canvas 1000x1000 needs 12 MiB, limit 8 MiB")) {
            try large.check(width: 1000, height: 1000)
        }
    }
}

/// The ceiling the CLI holds `--max-memory-mb` to: half the least bound, in whole MiB.
@Suite struct MemoryCeilingTests {
    @Test func theLeastBoundSetsItHalvedToWholeMiB() {
        let gib = 1 << 30
        let space = MemoryCeiling.from(physical: 24 * gib, addressSpace: 4 * gib, data: nil, cgroup: 8 * gib)
        #expect(space == MemoryCeiling(bytes: 2 * gib, source: "the address-space limit (ulimit -v)"))
        let group = MemoryCeiling.from(physical: 24 * gib, addressSpace: nil, data: 6 * gib, cgroup: 3 * gib + 12345)
        #expect(group == MemoryCeiling(bytes: 1536 << 20, source: "the cgroup's memory.max"))
        #expect(MemoryCeiling.from(physical: 8 * gib, addressSpace: nil, data: nil, cgroup: nil).source == "physical memory")
        #expect(MemoryCeiling.from(physical: nil, addressSpace: nil, data: nil, cgroup: nil).bytes == .max)
    }

    /// This process's: physical memory bounds every machine, so never unbounded, never above it.
    @Test func thisProcessHasOne() {
        let c = MemoryCeiling.current
        #expect(c.bytes > 0 && c.bytes < .max && c.bytes % (1 << 20) == 0)
    }
}
