#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct SupportWriteAllTests {
    /// 1 MiB through a non-blocking pipe (64 KiB buffer) while another thread drains it slowly:
    /// every short write and EAGAIN is resumed, and the reader gets every byte in order.
    @Test func resumesShortWritesAndEAGAIN() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let (r, w) = (fds[0], fds[1])
        _ = fcntl(w, F_SETFL, fcntl(w, F_GETFL) | O_NONBLOCK)
        let data = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        let received = Monitor([UInt8]())
        let reader = try ProducerThread {
            var buf = [UInt8](repeating: 0, count: 3000)
            while true {
                let n = read(r, &buf, buf.count)
                if n <= 0 { break }
                let chunk = Array(buf[0..<n])
                received.withLock { $0 += chunk }
            }
        }
        let e = data.withUnsafeBytes { writeAll(w, $0) }
        close(w)
        reader.join()
        close(r)
        #expect(e == 0)
        #expect(received.withLock { $0 } == data)
    }

    @Test func reportsTheErrnoThatStoppedIt() throws {
        let fd = open("/dev/null", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let e = [UInt8](repeating: 1, count: 10).withUnsafeBytes { writeAll(fd, $0) }
        #expect(e == EBADF)
        #expect([UInt8]().withUnsafeBytes { writeAll(fd, $0) } == 0, "nothing to write is not an error")
    }
}
