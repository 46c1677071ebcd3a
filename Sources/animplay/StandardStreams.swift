#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to stdout/stderr without Foundation.
enum StandardError {
    static func write(_ s: String) { writeAll(2, s) }
}
enum StandardOutput {
    static func write(_ s: String) { writeAll(1, s) }
}

private func writeAll(_ fd: Int32, _ s: String) {
    var s = s
    s.withUTF8 { buf in
        var off = 0
        while off < buf.count {
            let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
            if n < 0 { if errno == EINTR { continue }; return }
            off += n
        }
    }
}
