/// Every failure animplay reports: one line, naming the problem (the CLI adds the file name).
public enum AnimatedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read (missing, a directory, permissions, I/O).
    case unreadable(String)
    /// The bytes are not a format animplay knows.
    case unsupportedFormat(String)
    /// The file is malformed beyond what can be shown.
    case invalid(String)
    /// Decoding would exceed a configured limit (size, pixels, memory).
    case limitExceeded(String)
    /// An output could not be written.
    case output(String)
    /// A download failed (HTTP status, DNS, connection, timeout, TLS, size cap).
    case network(String)

    public var description: String {
        switch self {
        case .unreadable(let s): return "cannot read file: \(s)"
        case .unsupportedFormat(let s): return "unsupported format: \(s)"
        case .invalid(let s): return "invalid image: \(s)"
        case .limitExceeded(let s): return "too large: \(s)"
        case .output(let s): return "cannot write: \(s)"
        case .network(let s): return "download failed: \(s)"
        }
    }

    /// Process exit status for this error (documented in `animplay --help`).
    public var exitCode: Int32 {
        switch self {
        case .unreadable, .output: return 2
        case .unsupportedFormat, .invalid: return 3
        case .limitExceeded: return 4
        case .network: return 5
        }
    }
}
