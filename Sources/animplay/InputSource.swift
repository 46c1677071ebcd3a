import AnimatedCore
#if canImport(Glibc)
import Glibc
#endif

/// Where the bytes of one animation come from: a regular file (read in place), or a stream
/// spooled as it arrives (standard input, a FIFO or process substitution, later a URL).
enum InputSource {
    /// `-` or no file with a pipe on standard input.
    static let stdinName = "-"

    /// Opens `name` as a byte source for the codecs. Streams are read to their end first.
    static func open(_ name: String) throws(AnimatedError) -> ByteSource {
        if name == stdinName && isatty(0) != 0 {
            throw .unreadable("standard input is a terminal: pipe an image into animplay (cat x.gif | animplay -) or name a file")
        }
        guard let spool = try SpoolReader.openStream(path: name) else {
            return try ByteSource(path: name)
        }
        let end = spool.waitUntilFinished()
        if let failure = end.failure, end.count == 0 { throw .unreadable(failure) }
        if end.count == 0 { throw .invalid("empty input") }
        let source = ByteSource(spool: spool)
        if let note = earlyEnd(source) { StandardError.write("animplay: \(name == stdinName ? "<stdin>" : name): warning: \(note)\n") }
        return source
    }

    /// Whether the image itself comes from standard input (keys then come from /dev/tty).
    static func readsStandardInput(_ name: String) -> Bool {
        if name == stdinName { return true }
        if name == "/dev/stdin" || name == "/proc/self/fd/0" || name == "/dev/fd/0" { return isatty(0) == 0 }
        return false
    }

    /// Ends-early note for a stream that stopped with an error after some bytes.
    static func earlyEnd(_ source: ByteSource) -> String? {
        guard let p = source.spool?.progress, let failure = p.failure, p.count > 0 else { return nil }
        return "input ended early after \(p.count) bytes (\(failure)); showing what arrived"
    }
}
