import CNcurses
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
///
/// $TERM's entry is tried first and the machine asked only when it fails: asking up front
/// loaded an entry (about 0.1 ms) on every start for the rare terminal that needs it.
enum TerminfoEntry {
    /// The substitute for a missing entry.
    static let fallback = "xterm-256color"

    /// $TERM as set (nil: unset).
    static var term: String? { getenv("TERM").map { String(cString: $0) } }

    /// `body` run with `type` when given, else with nil ($TERM's entry) and, when that fails
    /// and this machine has no entry for $TERM, once more with the fallback's name, after the
    /// warning line (stderr, before the screen is up) unless `warn` is false. The result, or a
    /// failure naming the entry last tried (nil: $TERM's) for `refusal`.
    static func start<T>(_ type: String? = nil, warn: Bool = true,
                         _ body: (String?) -> T?) -> Result<T, Failure> {
        if let type { return body(type).map { .success($0) } ?? .failure(Failure(type: type)) }
        if let started = body(nil) { return .success(started) }
        guard let substitute = substitute(for: term, exists: { animplay_terminfo_exists($0) != 0 }) else {
            return .failure(Failure(type: nil))
        }
        if warn {
            StandardError.line("animplay: warning: this machine has no terminfo entry for TERM '\(term ?? "")'; using \(substitute)'s (install the terminal's entry, e.g. Debian's ncurses-term or kitty-terminfo, to use its own)")
        }
        return body(substitute).map { .success($0) } ?? .failure(Failure(type: substitute))
    }

    /// The entry that could not be started (nil: $TERM's).
    struct Failure: Error {
        let type: String?
    }

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
