import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// Unbuffered writes of messages to stdout/stderr without Foundation. Everything written
/// here is text for a person (errors, warnings, `info`, `cache info`), which can hold
/// file names, URLs and server headers: controls are escaped (`TerminalText`), line breaks kept.
enum StandardError {
    static func write(_ s: String) { writeString(2, TerminalText.escaped(s, keepNewlines: true)) }

    /// One message line: every control escaped, line breaks too (a file name holding one must
    /// not split an error or a warning over two lines), then the line's own newline.
    static func line(_ s: String) { writeString(2, TerminalText.escaped(s) + "\n") }

    /// The program's own control bytes (a progress bar's carriage return and line erase),
    /// written as they are: nothing from outside may be in `s`.
    static func control(_ s: String) { writeString(2, s) }
}
enum StandardOutput {
    static func write(_ s: String) { writeString(1, TerminalText.escaped(s, keepNewlines: true)) }
}

private func writeString(_ fd: Int32, _ s: String) {
    var s = s
    s.withUTF8 { _ = writeAll(fd, UnsafeRawBufferPointer($0)) }
}
