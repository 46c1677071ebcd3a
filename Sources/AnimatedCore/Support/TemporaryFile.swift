#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that live only while a descriptor does: made in the temporary folder and unlinked at
/// once, so nothing is left behind however the process ends (a spool that outgrew memory,
/// `convert`'s output for a destination that cannot be renamed over).
package enum TemporaryFile {
    /// $TMPDIR when set and not empty, else /tmp.
    package static var folder: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// A new, already unlinked file `folder/PREFIX-XXXXXX` open for reading and writing
    /// (close-on-exec), or the errno that stopped `mkstemp`.
    package static func unlinked(prefix: String) -> Result<Int32, Errno> {
        var template = Array((folder + "/" + prefix + "-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return .failure(Errno(errno)) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return .success(fd)
    }

    /// An errno as an `Error` (the message is `strerror`'s).
    package struct Errno: Error, CustomStringConvertible {
        package let code: Int32
        init(_ code: Int32) { self.code = code }
        package var description: String { String(cString: strerror(code)) }
    }
}
