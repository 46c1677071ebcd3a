import CNcurses
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The terminfo entry curses is started with: $TERM's, or xterm-256color's when this machine
/// has none for $TERM.
///
/// A terminal's own entry is often missing where animplay runs: over ssh from kitty
/// (TERM=xterm-kitty), Ghostty, foot, WezTerm or Alacritty to a server that lacks their terminfo
/// (Debian ships them in ncurses-term or the terminal's own package; ncurses-base has only a
/// few, xterm-256color among them). animplay then refused to play, where chafa and timg (which
/// use no terminfo) worked. Those terminals follow xterm in everything curses does here
/// (alternate screen, cursor, keys, colours), so xterm-256color's entry serves, with one warning
/// line. `dumb`, and an unset or empty TERM, get no substitute: they say the terminal cannot do
/// this (or nobody said what it is).
enum TerminfoEntry {
    /// The substitute for a missing entry.
    static let fallback = "xterm-256color"

    /// $TERM as set (nil: unset).
    static var term: String? { getenv("TERM").map { String(cString: $0) } }

    /// The entry to start curses with: nil for $TERM's own, else the fallback's name. The
    /// first call that substitutes writes the warning line (stderr, before the screen is up)
    /// unless `warn` is false.
    static func name(warn: Bool = true) -> String? {
        guard let substitute = decision else { return nil }
        let first = warn && warned.withLock { w -> Bool in
            defer { w = true }
            return !w
        }
        if first {
            StandardError.line("animplay: warning: this machine has no terminfo entry for TERM '\(term ?? "")'; using \(substitute)'s (install the terminal's entry, e.g. Debian's ncurses-term or kitty-terminfo, to use its own)")
        }
        return substitute
    }

    /// Decided once: the fallback when $TERM names an entry this machine lacks and the
    /// fallback's is here.
    private static let decision: String? = substitute(for: term, exists: { animplay_terminfo_exists($0) != 0 })

    private static let warned = Mutex(false)

    /// Why curses could not start with `type` (nil: $TERM's entry) on a terminal whose window
    /// is `window` (columns, rows) if known. With the entry there, the window is the likely
    /// cause: curses refuses one it cannot allocate (65535x65535 cells).
    static func refusal(_ type: String?, window: (Int, Int)? = nil,
                        exists: (String) -> Bool = { animplay_terminfo_exists($0) != 0 }) -> String {
        let name = type ?? term ?? ""
        if name.isEmpty { return "TERM is not set: set it to your terminal's type (e.g. xterm-256color)" }
        guard exists(name) else { return "cannot use terminal type '\(name)' (no terminfo entry?)" }
        let size = window.map { " on a \($0.0)x\($0.1) window" } ?? ""
        return "curses could not start\(size) (terminal type '\(name)')"
    }

    /// The substitute for `term` (nil: use it as it is, or let curses refuse it).
    static func substitute(for term: String?, exists: (String) -> Bool) -> String? {
        guard let term, !term.isEmpty, term != "dumb", !exists(term), exists(fallback) else { return nil }
        return fallback
    }
}
