import Testing
@testable import AnimatedCore

@Suite struct DecodeLimitsTests {
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
