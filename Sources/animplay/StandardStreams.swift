import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// Unbuffered writes to stdout/stderr without Foundation.
enum StandardError {
    static func write(_ s: String) { writeString(2, s) }
}
enum StandardOutput {
    static func write(_ s: String) { writeString(1, s) }
}

private func writeString(_ fd: Int32, _ s: String) {
    var s = s
    s.withUTF8 { _ = writeAll(fd, UnsafeRawBufferPointer($0)) }
}
