import CNcurses

/// What a key does during playback.
enum PlaybackAction: Equatable {
    case togglePause
    case step(Int)
    case faster, slower
    case toggleReverse
    case restart
    case toggleStatus
    /// Several files played in turn: the next or the previous one.
    case nextFile, previousFile
    case quit
}

/// Keys: space pause/resume; ←/→ step when paused; +/- speed; r reverse; 0 restart;
/// i status line; n/p next/previous file (several files in turn); q, a lone Esc, Ctrl-C quit. Keypad + − 0 act like the main keys.
enum KeyMap {
    /// Each +/- multiplies or divides the speed by this (four presses double it).
    static let speedStep = 1.189207115

    static let escape: Int32 = 0x1B

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
        case 0x6E, 0x4E: return .nextFile          // n N
        case 0x70, 0x50: return .previousFile      // p P
        case 0x71, 0x51, 0x03: return .quit        // q Q Ctrl-C (when it arrives as a key)
        default: return nil
        }
    }

    /// The actions of one batch of keys as ncurses delivered them: key codes for the sequences
    /// its terminfo entry knows, and the raw bytes of those it does not (an Esc followed, within
    /// the same batch, by more bytes). Only a lone Esc quits; an escape sequence (CSI, SS3) or
    /// Alt+key is read whole and ignored, except the keypad's application-mode + − 0 (SS3 k m p),
    /// which act like the main keys.
    static func actions(for keys: [Int32]) -> [PlaybackAction] {
        var out: [PlaybackAction] = []
        var i = 0
        while i < keys.count {
            let k = keys[i]
            i += 1
            guard k == escape else {
                if let a = action(for: k) { out.append(a) }
                continue
            }
            guard i < keys.count else { out.append(.quit); break }    // a lone Esc
            let intro = keys[i]
            i += 1
            switch intro {
            case 0x5B:                                     // CSI: parameters, intermediates, final
                let start = i
                while i < keys.count, (0x20...0x3F).contains(keys[i]) { i += 1 }
                guard i < keys.count, (0x40...0x7E).contains(keys[i]) else { break }
                // Unmodified arrows and Home from a terminal that ignores application cursor
                // mode (the terminfo entry has the SS3 forms).
                if i == start, let a = cursorKey(keys[i]) { out.append(a) }
                i += 1
            case 0x4F:                                     // SS3: one final byte
                guard i < keys.count else { break }
                switch keys[i] {
                case 0x6B: out.append(.faster)             // keypad +
                case 0x6D: out.append(.slower)             // keypad −
                case 0x70: out.append(.restart)            // keypad 0
                case let f: if let a = cursorKey(f) { out.append(a) }   // keypad Enter, 5, F1–F4: nothing
                }
                i += 1
            default:
                break                                      // Alt+key (or Esc before a decoded key)
            }
        }
        return out
    }

    /// The final byte of an arrow or Home sequence (CSI or SS3), as the key it stands for.
    private static func cursorKey(_ final: Int32) -> PlaybackAction? {
        switch final {
        case 0x43: return action(for: KEY_RIGHT)
        case 0x44: return action(for: KEY_LEFT)
        case 0x48: return action(for: KEY_HOME)
        default: return nil
        }
    }
}
