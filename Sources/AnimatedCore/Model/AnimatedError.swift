#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every failure AnimatedCore reports: what kind of problem it is, and one line saying what went
/// wrong (the CLI adds the file name).
///
/// Throw sites read as before: `throw .invalid("no frames")`. Callers that care about the kind
/// compare ``kind``; callers that show the error print ``description``.
public struct AnimatedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is: decides the category prefix and the exit status.
    public enum Kind: Sendable, Equatable, CaseIterable {
        /// The file could not be read (missing, a directory, permissions, I/O).
        case unreadable
        /// The bytes are not a format AnimatedCore knows.
        case unsupportedFormat
        /// The file is malformed beyond what can be shown.
        case invalid
        /// Decoding would exceed a configured limit (size, pixels, memory).
        case limitExceeded
        /// An output could not be written.
        case output
        /// The system refused a resource that has nothing to do with the image (a thread).
        case system
        /// A download failed (HTTP status, DNS, connection, timeout, TLS, size cap).
        case network
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// The problem, without the category prefix (for example `"no frames"`).
    public var message: String
    /// The HTTP status of a failed download (nil: none came, e.g. DNS or a timeout).
    public var httpStatus: Int?
    /// The system error behind a failure to read or write (`errno`), when there is one.
    public var errno: Int32?

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil, errno: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
        self.errno = errno
    }

    /// An error of `kind` for the system error `code`: its text after `prefix`, `errno` set.
    public static func posix(_ kind: Kind, _ code: Int32, _ prefix: String = "") -> AnimatedError {
        AnimatedError(kind, prefix + String(cString: strerror(code)), errno: code)
    }

    /// The file could not be read.
    public static func unreadable(_ message: String) -> AnimatedError { AnimatedError(.unreadable, message) }
    /// The bytes are not a format AnimatedCore knows.
    public static func unsupportedFormat(_ message: String) -> AnimatedError { AnimatedError(.unsupportedFormat, message) }
    /// The file is malformed beyond what can be shown.
    public static func invalid(_ message: String) -> AnimatedError { AnimatedError(.invalid, message) }
    /// Decoding would exceed a configured limit.
    public static func limitExceeded(_ message: String) -> AnimatedError { AnimatedError(.limitExceeded, message) }
    /// An output could not be written.
    public static func output(_ message: String) -> AnimatedError { AnimatedError(.output, message) }
    /// The system refused a resource (a thread).
    public static func system(_ message: String) -> AnimatedError { AnimatedError(.system, message) }
    /// A download failed.
    public static func network(_ message: String) -> AnimatedError { AnimatedError(.network, message) }

    /// One line: the category, then the message (`invalid image: no frames`).
    public var description: String {
        switch kind {
        case .unreadable: return "cannot read file: \(message)"
        case .unsupportedFormat: return "unsupported format: \(message)"
        case .invalid: return "invalid image: \(message)"
        case .limitExceeded: return "too large: \(message)"
        case .output: return "cannot write: \(message)"
        case .system: return message
        case .network: return "download failed: \(message)"
        }
    }

    /// The same error with `prefix` before its message (names the file of a sequence frame).
    func prefixed(_ prefix: String) -> AnimatedError {
        AnimatedError(kind, prefix + message, httpStatus: httpStatus, errno: errno)
    }
}
