import AnimatedCore

extension AnimatedError {
    /// Process exit status for this error (documented in `animplay --help`): the command
    /// line's policy, not the library's.
    var exitCode: Int32 {
        switch kind {
        case .unreadable, .output: return 2
        case .unsupportedFormat, .invalid: return 3
        case .limitExceeded: return 4
        case .system: return 1
        case .network: return 5
        }
    }
}
