#if canImport(Glibc)
import Glibc
#endif

/// Raw writes to the terminal file descriptor (the image cells that ncurses does not write).
enum TerminalOutput {
    /// Writes all bytes, retrying on EINTR/EAGAIN; gives up silently if the terminal is gone
    /// (EIO after a hang-up): there is no one left to tell.
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0); _ = poll(&pfd, 1, 100); continue }
                return
            }
            p += n; left -= n
        }
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write(fd, $0) }
    }

    static func write(_ fd: Int32, _ s: String) {
        var s = s
        s.withUTF8 { write(fd, UnsafeRawBufferPointer($0)) }
    }
}
