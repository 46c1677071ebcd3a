import AnimatedCore

/// How frames reach the terminal (`--graphics`).
package enum GraphicsProtocol: String, Sendable, CaseIterable {
    /// kitty graphics protocol (kitty, Ghostty, ...).
    case kitty
    /// DEC sixel (xterm -ti vt340, foot, mlterm, Konsole, ...).
    case sixel
    /// iTerm2 inline images (iTerm2, WezTerm, ...).
    case iterm2
    /// Character cells (every terminal).
    case cells
}

/// What `--graphics` asks for: one protocol, or auto-detection.
package enum GraphicsRequest: Sendable, Equatable {
    case auto
    /// This protocol, unless the terminal's answers show it lacks it: then one warning and
    /// what `auto` would choose.
    case forced(GraphicsProtocol)
    /// This protocol or nothing (`--graphics kitty!`): a terminal that lacks it is an error.
    case required(GraphicsProtocol)

    /// `auto`, `kitty`, `sixel`, `iterm2` or `cells`, each but auto optionally followed by `!`.
    package init?(argument: String) {
        if argument == "auto" { self = .auto; return }
        let strict = argument.hasSuffix("!")
        guard let p = GraphicsProtocol(rawValue: String(strict ? argument.dropLast() : argument[...])) else { return nil }
        self = strict ? .required(p) : .forced(p)
    }

    /// The protocol asked for, nil for auto.
    package var named: GraphicsProtocol? {
        switch self {
        case .auto: nil
        case .forced(let p), .required(let p): p
        }
    }
}

/// What the terminal answered to the start-up queries (the terminal probe's findings that
/// matter for graphics); nil fields: no answer.
package struct TerminalGraphicsAnswers: Sendable, Equatable {
    /// kitty's `a=q` query was answered OK.
    package var kittyGraphics: Bool
    /// DA1 listed attribute 4 (sixel).
    package var sixel: Bool
    /// XTVERSION's name and version, e.g. "kitty(0.26.5)", "WezTerm 20240203", "iTerm2 3.5".
    package var version: String?

    package init(kittyGraphics: Bool = false, sixel: Bool = false, version: String? = nil) {
        self.kittyGraphics = kittyGraphics; self.sixel = sixel; self.version = version
    }
}

/// The detection policy: which protocol `auto` uses, from the environment first (cheap, and
/// right where the variables are set by the terminal itself), then the terminal's answers.
///
/// Inside tmux, escape sequences reach the outer terminal only through passthrough: graphics
/// are used when `allow-passthrough` is on, else cells. Over ssh the environment of the local
/// terminal is mostly absent (only TERM travels), so the answers decide.
package enum GraphicsPolicy {
    package struct Decision: Sendable, Equatable {
        package var graphics: GraphicsProtocol
        /// Wrap escape sequences for tmux passthrough.
        package var tmux: Bool
        /// Why (for `--status` and debugging).
        package var reason: String
        /// Set when `--graphics` named a protocol the terminal lacks: why (one line). With
        /// `.forced` the decision is then auto's, to be said once; with `.required`, an error.
        package var unsupported: String? = nil
    }

    /// Why the terminal cannot show `p`, judging from what it answered, or nil when it can or
    /// nothing says it cannot (no answer at all: the user's word stands). kitty graphics: the
    /// `a=q` query went unanswered while DA1 came. Sixel: DA1 lacks attribute 4 (inside tmux,
    /// the outer terminal's DA1). iTerm2 images have no query: lacking only when XTVERSION names
    /// a terminal known not to have them. Inside tmux without passthrough nothing gets out.
    package static func lacks(_ p: GraphicsProtocol, env: [String: String], answers: TerminalGraphicsAnswers?,
                             tmuxPassthrough: Bool) -> String? {
        if p == .cells { return nil }
        if env["TMUX"] != nil && !tmuxPassthrough {
            return "inside tmux without allow-passthrough, \(p.rawValue) images cannot reach the terminal"
        }
        guard let a = answers else { return nil }
        if let (q, _) = fromEnvironment(env), q == p { return nil }
        switch p {
        case .kitty:
            return a.kittyGraphics ? nil : "the terminal did not answer the kitty graphics query"
        case .sixel:
            return a.sixel ? nil : "the terminal does not list sixel in its device attributes"
        case .iterm2:
            // No XTVERSION answer (many terminals give none): nothing says it cannot.
            guard let version = a.version else { return nil }
            let without = ["xterm(", "kitty(", "foot(", "mlterm(", "alacritty", "ghostty"]
            guard without.contains(where: version.lowercased().hasPrefix) else { return nil }
            // The terminal's own words go to stderr: printable ASCII only.
            let name = String(String.UnicodeScalarView(version.unicodeScalars.prefix(40).map {
                (0x20..<0x7F).contains($0.value) ? $0 : "?"
            }))
            return "\(name) has no iTerm2 inline images"
        case .cells:
            return nil
        }
    }

    /// The protocol the environment names, if any.
    package static func fromEnvironment(_ env: [String: String]) -> (GraphicsProtocol, String)? {
        let term = env["TERM"] ?? "", program = env["TERM_PROGRAM"] ?? ""
        if term == "xterm-kitty" { return (.kitty, "TERM=xterm-kitty") }
        if env["KITTY_WINDOW_ID"] != nil { return (.kitty, "KITTY_WINDOW_ID") }
        if term == "xterm-ghostty" || program.lowercased() == "ghostty" { return (.kitty, "Ghostty") }
        if program == "iTerm.app" { return (.iterm2, "TERM_PROGRAM=iTerm.app") }
        if env["LC_TERMINAL"] == "iTerm2" { return (.iterm2, "LC_TERMINAL=iTerm2") }
        if program == "vscode" { return (.iterm2, "TERM_PROGRAM=vscode") }
        if env["WEZTERM_EXECUTABLE"] != nil || program == "WezTerm" { return (.iterm2, "WezTerm") }
        if env["KONSOLE_VERSION"] != nil { return (.sixel, "KONSOLE_VERSION") }
        if term.hasPrefix("foot") || term.hasPrefix("mlterm") { return (.sixel, "TERM=\(term)") }
        return nil
    }

    /// The protocol the terminal's answers point to, if any.
    package static func fromAnswers(_ a: TerminalGraphicsAnswers) -> (GraphicsProtocol, String)? {
        if a.kittyGraphics { return (.kitty, "kitty graphics query answered") }
        if let version = a.version, ["iterm2", "wezterm"].contains(where: version.lowercased().hasPrefix) {
            return (.iterm2, "XTVERSION \(version)")
        }
        if a.sixel { return (.sixel, "DA1 lists sixel") }
        return nil
    }

    /// `requested` resolved against the environment, the terminal's answers (nil: not asked or
    /// no answer) and, inside tmux (TMUX set), whether passthrough is allowed.
    package static func decide(_ requested: GraphicsRequest, env: [String: String],
                              answers: TerminalGraphicsAnswers?, tmuxPassthrough: Bool) -> Decision {
        let inTmux = env["TMUX"] != nil
        if let p = requested.named {
            guard let why = lacks(p, env: env, answers: answers, tmuxPassthrough: tmuxPassthrough) else {
                return Decision(graphics: p, tmux: inTmux && p != .cells, reason: "--graphics \(p.rawValue)")
            }
            if case .required = requested {
                return Decision(graphics: p, tmux: inTmux, reason: "--graphics \(p.rawValue)!", unsupported: why)
            }
            var d = decide(.auto, env: env, answers: answers, tmuxPassthrough: tmuxPassthrough)
            // auto must not pick what was just found missing (an environment variable's word).
            if d.graphics == p { d = Decision(graphics: .cells, tmux: false, reason: "no graphics") }
            d.unsupported = why
            return d
        }
        if inTmux && !tmuxPassthrough {
            return Decision(graphics: .cells, tmux: false, reason: "tmux without allow-passthrough")
        }
        if let (p, why) = fromEnvironment(env) ?? answers.flatMap(fromAnswers) {
            return Decision(graphics: p, tmux: inTmux, reason: why)
        }
        return Decision(graphics: .cells, tmux: false, reason: answers == nil ? "no answer" : "no graphics")
    }
}
