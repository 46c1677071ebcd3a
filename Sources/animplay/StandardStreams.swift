import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// Unbuffered writes of messages to stdout/stderr without Foundation. Everything written
/// here is text for a person (errors, warnings, `info`, `cache info`), which can hold
/// file names, URLs and server headers: controls are escaped (`TerminalText`), line breaks kept.
enum StandardError {
    static func write(_ s: String) { writeString(2, TerminalText.escaped(s, keepNewlines: true)) }
}
enum StandardOutput {
    static func write(_ s: String) { writeString(1, TerminalText.escaped(s, keepNewlines: true)) }
}

private func writeString(_ fd: Int32, _ s: String) {
    var s = s
    s.withUTF8 { _ = writeAll(fd, UnsafeRawBufferPointer($0)) }
}
