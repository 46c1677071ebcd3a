import AnimatedCore

/// What `--colors` asks for.
package enum ColorRequest: String, Sendable, CaseIterable {
    case auto, truecolor
    case palette256 = "256"
    case palette16 = "16"
}

/// Who writes the image cells.
package enum CellPath: String, Sendable {
    /// ncurses draws them (stdscr cells with `alloc_pair` colour pairs); ncurses diffs frames.
    case curses
    /// animplay writes SGR itself (`SGRCellWriter`) into a region ncurses keeps blank.
    case direct
    /// Neither works: the terminal has too few colours for ncurses and no save/restore cursor.
    case unsupported
}

/// What the terminal is known to support (from terminfo and the environment).
package struct TerminalColorFacts: Sendable, Equatable {
    /// terminfo `colors` (0 or less: none).
    package var colors: Int
    /// terminfo `pairs`.
    package var pairs: Int
    /// The entry declares direct colour ("RGB").
    package var hasRGB: Bool
    /// COLORTERM is `truecolor` or `24bit`.
    package var colortermTruecolor: Bool
    /// The entry has save/restore cursor (sc/rc) and cursor addressing (cup).
    package var canSaveCursor: Bool
    /// The terminal itself showed it keeps 24-bit colour (a direct colour set and read back
    /// with DECRQSS, or XTGETTCAP `RGB`/`Tc`): a TERM=xterm entry says 8 colours, xterm has
    /// direct colour.
    package var answeredDirectColor = false
    /// Colours the terminal itself said it has (XTGETTCAP `colors`, or a direct colour read
    /// back as a 256-colour index); 0 when it did not say.
    package var answeredColors = 0

    /// Facts as terminfo and the environment state them.
    package init(colors: Int, pairs: Int, hasRGB: Bool, colortermTruecolor: Bool, canSaveCursor: Bool) {
        self.colors = colors; self.pairs = pairs; self.hasRGB = hasRGB
        self.colortermTruecolor = colortermTruecolor; self.canSaveCursor = canSaveCursor
    }

    /// COLORTERM as terminals set it.
    package static func colortermSaysTruecolor(_ value: String?) -> Bool {
        guard let v = value?.lowercased() else { return false }
        return v == "truecolor" || v == "24bit"
    }
}

/// Chooses the colour mode and who writes the cells.
///
/// ncurses can only emit the colours its terminfo entry declares. The common desktop case is
/// TERM=xterm-256color with COLORTERM=truecolor: the terminal does 24-bit colour but its entry
/// says 256. So 24-bit cells are always written by animplay (`direct`), with the ECMA-48
/// semicolon form 38;2;r;g;b that every truecolor terminal accepts (xterm-direct's entry uses
/// the colon form, which some emulators and parsers do not), while ncurses keeps the screen,
/// modes, input and the status line. Palette modes go through ncurses when its pair table can
/// hold every fg/bg combination of the palette (plus the default colour), so `alloc_pair`
/// never has to recycle a pair that is on screen; otherwise they too are written directly.
package enum ColorSelection {
    /// The colour mode and cell path for `request` on a terminal with `facts`.
    package static func choose(_ request: ColorRequest, facts: TerminalColorFacts) -> (ColorMode, CellPath) {
        let mode: ColorMode
        switch request {
        case .truecolor: mode = .truecolor
        case .palette256: mode = .palette256
        case .palette16: mode = .palette16
        case .auto:
            if facts.hasRGB || facts.colors >= 0x100_0000
                || ((facts.colortermTruecolor || facts.answeredDirectColor) && facts.canSaveCursor) {
                mode = .truecolor
            } else if max(facts.colors, facts.answeredColors) >= 256 {
                mode = .palette256
            } else {
                mode = .palette16
            }
        }
        if mode == .truecolor && !facts.canSaveCursor {
            // Without sc/rc the direct writer cannot hand the cursor back to ncurses.
            let fallback: ColorMode = max(facts.colors, facts.answeredColors) >= 256 ? .palette256 : .palette16
            return (fallback, path(for: fallback, facts: facts))
        }
        return (mode, path(for: mode, facts: facts))
    }

    /// Colour pairs needed so that no pair is ever recycled: every (fg, bg) over the palette
    /// plus the terminal's default colour, and one for the status line.
    static func pairsNeeded(_ mode: ColorMode) -> Int {
        switch mode {
        case .truecolor: return Int.max
        case .palette256: return 241 * 241 + 1   // indices 16–255 and the default
        case .palette16: return 17 * 17 + 1
        }
    }

    static func path(for mode: ColorMode, facts: TerminalColorFacts) -> CellPath {
        let needColors = mode == .palette256 ? 256 : 16
        let cursesCan = mode != .truecolor && facts.colors >= needColors
        if cursesCan && facts.pairs >= pairsNeeded(mode) { return .curses }
        if facts.canSaveCursor { return .direct }
        // Last resort: ncurses with a pair table that may have to recycle pairs.
        return cursesCan && facts.pairs > 0 ? .curses : .unsupported
    }
}
