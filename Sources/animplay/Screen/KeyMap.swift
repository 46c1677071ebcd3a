import CNcurses

/// What a key does during playback.
enum PlaybackAction: Equatable {
    case togglePause
    case step(Int)
    case faster, slower
    case toggleReverse
    case restart
    case toggleStatus
    case quit
}

/// Keys: space pause/resume; ←/→ step when paused; +/- speed; r reverse; 0 restart;
/// i status line; q, Esc, Ctrl-C quit.
enum KeyMap {
    /// Each +/- multiplies or divides the speed by this (four presses double it).
    static let speedStep = 1.189207115

    static func action(for key: Int32) -> PlaybackAction? {
        switch key {
        case 0x20: return .togglePause
        case KEY_LEFT: return .step(-1)
        case KEY_RIGHT: return .step(1)
        case 0x2B, 0x3D: return .faster            // '+', '=' (unshifted '+')
        case 0x2D, 0x5F: return .slower            // '-', '_'
        case 0x72, 0x52: return .toggleReverse     // r R
        case 0x30, KEY_HOME: return .restart       // 0
        case 0x69, 0x49: return .toggleStatus      // i I
        case 0x71, 0x51, 0x1B, 0x03: return .quit  // q Q Esc Ctrl-C (when it arrives as a key)
        default: return nil
        }
    }
}
