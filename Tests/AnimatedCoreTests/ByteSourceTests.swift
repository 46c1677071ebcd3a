import Testing
@testable import AnimatedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ByteSource(readingToEndOf:)`: a pipe read to its end, within a limit.
@Suite struct ByteSourceTests {
    /// A pipe holding `bytes`, its write end closed (the bytes fit the pipe's buffer).
    private func pipe(with bytes: [UInt8]) -> Int32 {
        var fds: [Int32] = [0, 0]
        #expect(Glibc.pipe(&fds) == 0)
        #expect(bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == bytes.count)
        close(fds[1])
        return fds[0]
    }

    @Test func readsAPipeToItsEnd() throws {
        let gif = Array("GIF89a".utf8) + (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let fd = pipe(with: gif)
        defer { close(fd) }
        let source = try ByteSource(readingToEndOf: fd, name: "<pipe>")
        #expect(source.count == gif.count)
        #expect(try source.allBytes() == gif)
        #expect(source.name == "<pipe>")
    }

    @Test func refusesMoreThanTheLimit() {
        let fd = pipe(with: [UInt8](repeating: 1, count: 100))
        defer { close(fd) }
        #expect(throws: AnimatedError.limitExceeded("<pipe> is larger than 50 bytes")) {
            try ByteSource(readingToEndOf: fd, name: "<pipe>", limit: 50)
        }
    }

    @Test func aReadErrorNamesTheSource() {
        // A write-only descriptor cannot be read: EBADF.
        var fds: [Int32] = [0, 0]
        #expect(Glibc.pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        do {
            _ = try ByteSource(readingToEndOf: fds[1], name: "<pipe>")
            Issue.record("reading a write-only descriptor succeeded")
        } catch {
            #expect(error.kind == .unreadable)
            #expect(error.errno == EBADF)
            #expect(error.message.hasPrefix("<pipe>: "))
        }
    }
}
