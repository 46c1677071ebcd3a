import CTerminalRescue
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What gives the terminal back if a signal animplay does not handle ends the process: Ctrl-\
/// (SIGQUIT), a failed check (SIGILL), SIGSEGV, SIGABRT, a stray `kill -USR1` (the C handler:
/// `animplay_rescue.h`). Every other way out restores the terminal itself.
///
/// Each change animplay makes to the terminal is a layer: the probe's raw input, curses'
/// screen, the inline player's hidden cursor, the connecting line. Layers nest; a death writes
/// every layer's bytes, the innermost first, and sets the tty modes that the oldest layer found
/// (the shell's), on a descriptor of its own that stays open while any layer does.
enum TerminalRescue {
    /// A change to undo; `leave` it once it is undone the usual way.
    struct Layer: Sendable {
        fileprivate let id: Int
    }

    /// What a sixel or kitty image cut short leaves open (ST ends the string) and a frame cut
    /// short leaves on (synchronized output): the start of every screen's undo.
    static let imageCutShort: [UInt8] = Array("\u{1B}\\\u{1B}[?2026l".utf8)

    private struct Entry: Sendable {
        var id: Int
        var modes: termios
        var output: Int32
        var undo: [UInt8]
    }

    private struct State: Sendable {
        var next = 0
        var entries: [Entry] = []
        /// A duplicate of the oldest layer's tty, open while any layer is (-1: none).
        var tty: Int32 = -1
    }

    private static let state = Mutex(State())

    /// Adds a layer: `undo` written to `output`, and, if it is the oldest layer, `modes` (the
    /// tty's before this change) set on `tty`.
    static func enter(tty: Int32, modes: termios, output: Int32 = 1, undo: [UInt8]) -> Layer {
        state.withLock { s in
            s.next += 1
            if s.entries.isEmpty { s.tty = fcntl(tty, F_DUPFD_CLOEXEC, 0) }
            s.entries.append(Entry(id: s.next, modes: modes, output: output, undo: undo))
            arm(s)
            return Layer(id: s.next)
        }
    }

    /// Removes a layer (its change is undone, or about to be). Unknown layers are ignored.
    static func leave(_ layer: Layer) {
        state.withLock { s in
            guard let i = s.entries.firstIndex(where: { $0.id == layer.id }) else { return }
            s.entries.remove(at: i)
            arm(s)
            if s.entries.isEmpty, s.tty >= 0 { close(s.tty); s.tty = -1 }
        }
    }

    /// Hands the C handler what the layers now undo (nothing: disarmed).
    private static func arm(_ s: State) {
        guard let oldest = s.entries.first, let newest = s.entries.last else {
            animplay_rescue_disarm()
            return
        }
        let bytes = s.entries.reversed().flatMap(\.undo)
        var modes = oldest.modes
        if animplay_rescue_arm(newest.output, bytes, bytes.count, s.tty, &modes) != 0 {
            animplay_rescue_disarm()
        }
    }
}
