import CThreadStart
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `animplay_thread_create_elsewhere`: the thread runs its entry with its argument, and once
/// running may use every core its creator may (the other-core preference applies only to where
/// it starts: a scheduling effect, measured by the first-image trace, not asserted here).
@Suite struct ThreadStartTests {
    /// What the new thread saw: its argument, and how many cores it may run on.
    final class Seen: Sendable {
        let value = Mutex<(argument: Int, cores: Int32)>((0, 0))
    }

    @Test func theThreadRunsItsEntryAndMayUseEveryCoreItsCreatorMay() throws {
        #if os(Linux)
        let creatorCores = animplay_thread_cores()
        try #require(creatorCores > 0)
        for round in 0..<5 {
            let seen = Seen()
            var thread = pthread_t()
            let box = Unmanaged.passRetained(Box(seen: seen, argument: round + 40)).toOpaque()
            let rc = animplay_thread_create_elsewhere(&thread, { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                let cores = animplay_thread_cores()
                box.seen.value.withLock { $0 = (box.argument, cores) }
                return nil
            }, box)
            try #require(rc == 0)
            pthread_join(thread, nil)
            let got = seen.value.withLock { $0 }
            #expect(got.argument == round + 40)
            #expect(got.cores == creatorCores, "round \(round): \(got.cores) cores, the creator's \(creatorCores)")
        }
        #endif
    }

    final class Box: @unchecked Sendable {
        let seen: Seen
        let argument: Int
        init(seen: Seen, argument: Int) { self.seen = seen; self.argument = argument }
    }
}
