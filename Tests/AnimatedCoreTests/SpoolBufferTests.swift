import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// The spool that holds stdin/pipe/download bytes: reads at any offset while it grows, memory
/// bounded by spilling to an unlinked temporary file.
@Suite struct SpoolBufferTests {
    /// Deterministic bytes (no randomness): byte i is a mix of i.
    static func pattern(_ n: Int, seed: Int = 0) -> [UInt8] {
        (0..<n).map { UInt8(truncatingIfNeeded: ($0 &* 2654435761 &+ seed) >> 7) }
    }

    func read(_ spool: SpoolBuffer, at offset: Int, _ n: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: n)
        let got = try out.withUnsafeMutableBytes { try spool.read(at: offset, into: $0) }
        return Array(out[..<got])
    }

    @Test func growsInMemoryAndReadsAcrossChunks() throws {
        let spool = SpoolBuffer(name: "t", memoryCap: 1 << 20)
        let data = Self.pattern(200_000)
        // Uneven appends, reads while growing: every read sees exactly the prefix that exists.
        var at = 0
        for size in [1, 7, 65_535, 2, 70_000, 64_455] {
            try spool.append(Array(data[at..<(at + size)]))
            at += size
            #expect(spool.progress.count == at)
            #expect(try read(spool, at: 0, at + 10) == Array(data[0..<at]))
        }
        #expect(!spool.spilledToDisk)
        #expect(try read(spool, at: 65_530, 20) == Array(data[65_530..<65_550]))
        #expect(try read(spool, at: at, 5) == [])
        spool.finish()
        #expect(spool.progress.finished && spool.progress.failure == nil)
        try spool.append([1, 2, 3])                       // ignored after the end
        #expect(spool.progress.count == at)
    }

    @Test func spillsToAnUnlinkedFilePastTheCap() throws {
        let spool = SpoolBuffer(name: "t", memoryCap: 100_000)
        let data = Self.pattern(300_000, seed: 3)
        try spool.append(Array(data[0..<90_000]))
        #expect(!spool.spilledToDisk)
        try spool.append(Array(data[90_000..<150_000]))
        #expect(spool.spilledToDisk)
        try spool.append(Array(data[150_000...]))
        #expect(try read(spool, at: 0, 300_000) == data)
        #expect(try read(spool, at: 99_990, 30) == Array(data[99_990..<100_020]))
    }

    @Test func byteSourceSeesAFixedPrefixUntilRefresh() throws {
        let spool = SpoolBuffer(name: "s")
        try spool.append([1, 2, 3])
        let source = ByteSource(spool: spool)
        #expect(source.count == 3 && source.isGrowing)
        try spool.append([4, 5])
        #expect(source.count == 3)
        #expect(try source.bytes(at: 0, length: 10) == [1, 2, 3])
        #expect(source.refresh())
        #expect(source.count == 5 && source.isGrowing)
        spool.finish(failure: "connection reset")
        #expect(source.refresh())
        #expect(!source.isGrowing && source.count == 5)
        #expect(!source.refresh())
        #expect(spool.progress.failure == "connection reset")
    }

    @Test func readerThreadCopiesAPipeToTheEnd() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let spool = SpoolBuffer(name: "pipe", memoryCap: 50_000)
        try SpoolReader.start(fd: fds[0], into: spool, firstDataTimeoutMs: -1)
        let data = Self.pattern(120_000, seed: 9)
        var off = 0
        while off < data.count {
            let n = data[off...].withUnsafeBytes { write(fds[1], $0.baseAddress!, min($0.count, 10_000)) }
            #expect(n > 0)
            off += n
            // Observable state, no sleeping: the spool reaches at least what was written.
            var seen = 0
            while seen < off { seen = spool.waitForMore(than: seen)!.count }
        }
        close(fds[1])
        let end = spool.waitUntilFinished()
        #expect(end.count == data.count && end.failure == nil)
        #expect(try read(spool, at: 0, data.count) == data)
    }

    /// An endless stream (`cat /dev/zero | animplay info -`) must not fill the temporary file's
    /// disk: the reader stops at the limit, keeps what arrived up to it, and says why.
    @Test func aStreamStopsAtItsLimitKeepingWhatArrived() throws {
        let path = "/tmp/animplay-spool-limit-\(getpid())"
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let spool = try #require(try SpoolReader.openStream(path: path, maxBytes: 100_000, limitHint: "see --max-input-mb"))
        let writer = open(path, O_WRONLY)
        try #require(writer >= 0)
        defer { close(writer) }
        signal(SIGPIPE, SIG_IGN)   // the reader closes its end at the limit
        let data = Self.pattern(30_000, seed: 4)
        var written = 0
        while !spool.progress.finished {
            let n = data.withUnsafeBytes { write(writer, $0.baseAddress!, $0.count) }
            if n <= 0 { break }
            written += n
            #expect(written < 10_000_000)   // the reader stopped long before
            if written >= 10_000_000 { break }
        }
        let end = spool.waitUntilFinished()
        #expect(end.count == 100_000 && !end.fatal)
        #expect(end.failure == "more than 1 MB, the limit: see --max-input-mb")
        let kept = try read(spool, at: 0, 100_000)
        #expect(kept == Array((0..<4).flatMap { _ in data }.prefix(100_000)))
    }

    @Test func fifoWithoutAWriterTimesOut() throws {
        let path = "/tmp/animplay-spool-test-\(getpid())"
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let spool = try #require(try SpoolReader.openStream(path: path, firstDataTimeoutMs: 100))
        let end = spool.waitUntilFinished()
        #expect(end.count == 0)
        #expect(end.failure?.contains("nothing arrived") == true)
    }

    @Test func regularFilesAreNotStreams() throws {
        #expect(try SpoolReader.openStream(path: "/etc/hostname") == nil)
    }
}
