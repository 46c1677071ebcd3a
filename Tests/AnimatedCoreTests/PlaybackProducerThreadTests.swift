#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal
@testable import animplay

@Suite struct PlaybackProducerThreadTests {
    /// A thread the system refuses is reported as what it is (exit status 1), not as an image
    /// that exceeds a decoding limit (exit status 4), and the closure it would have run is freed.
    @Test func refusedThreadIsASystemError() {
        final class Probe: @unchecked Sendable {}   // only its lifetime is observed
        weak var captured: Probe?
        do {
            let probe = Probe()
            captured = probe
            _ = try ProducerThread(spawn: { _, _, _ in EAGAIN }) { _ = probe }
            Issue.record("a refused thread did not throw")
        } catch {
            #expect(error.kind == .system)
            #expect(error.exitCode == 1)
            #expect(error.description == "cannot start the decoding thread: Resource temporarily unavailable")
        }
        #expect(captured == nil, "the closure of a thread that never started leaked")
    }

    @Test func startedThreadRunsItsClosureOnce() throws {
        let runs = Monitor(0)
        let thread = try ProducerThread { runs.withLock { $0 += 1 } }
        thread.join()
        thread.join()
        #expect(runs.withLock { $0 } == 1)
    }
}
