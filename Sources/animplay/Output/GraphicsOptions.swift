import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `--graphics`: how frames reach the terminal, and the choice made before playback starts.
struct GraphicsOptions: ParsableArguments {
    @Option(name: .customLong("graphics"), help: ArgumentHelp(
        "Real pixels or cells: auto (detect the terminal), kitty, sixel, iterm2 or cells. A named mode the terminal's answers show it lacks falls back to auto's choice with one warning line; add ! (e.g. kitty!) to make that an error instead.",
        valueName: "MODE"))
    var graphicsArgument: String = "auto"

    func validate() throws {
        guard GraphicsRequest(argument: graphicsArgument) != nil else {
            throw ValidationError("--graphics must be auto, kitty, sixel, iterm2 or cells (optionally with !, e.g. kitty!), got '\(graphicsArgument)'")
        }
    }

    /// What the kitty output needs to start.
    struct KittySetup {
        var cell: RenderSize
        var reportedCell: RenderSize?
        var tmux: Bool
    }

    struct Choice {
        var decision: GraphicsPolicy.Decision
        /// Set when frames go out as kitty graphics.
        var kitty: KittySetup?
        /// Set when frames go out as sixel or iTerm2 inline images.
        var inline: InlineImageSetup?
    }

    /// `--graphics cells` (with or without `!`): no terminal query is needed for graphics.
    var wantsCells: Bool { GraphicsRequest(argument: graphicsArgument)?.named == .cells }

    /// Decides the output: `--graphics`, else the environment, else the terminal's answers.
    /// Prints one warning line (before the screen starts) when graphics were wanted but cannot
    /// be used, and falls back (to auto's choice when a named mode is missing, to cells when
    /// the cell size is unknown); a mode required with `!` that the terminal lacks is an error.
    func choose(_ report: TerminalReport) throws(CLIFailure) -> Choice {
        let env = Self.environment()
        let inTmux = env["TMUX"] != nil
        // Inside tmux, a second DA1 answer means the wrapped queries got through: passthrough
        // is on. Otherwise ask tmux itself.
        let passthrough = inTmux && (report.da1Count >= 2 || TmuxClient.allowsPassthrough())
        let answers = report.answeredDA1
            ? TerminalGraphicsAnswers(kittyGraphics: report.kittyGraphics, sixel: report.sixel, version: report.version)
            : nil
        let decision = GraphicsPolicy.decide(GraphicsRequest(argument: graphicsArgument) ?? .auto, env: env,
                                             answers: answers, tmuxPassthrough: passthrough)
        if let why = decision.unsupported {
            let asked = graphicsArgument.hasSuffix("!") ? String(graphicsArgument.dropLast()) : graphicsArgument
            if graphicsArgument.hasSuffix("!") {
                throw CLIFailure(message: "--graphics \(graphicsArgument): \(why)")
            }
            warn("--graphics \(asked): \(why); using \(decision.graphics.rawValue)")
        }
        var choice = Choice(decision: decision, kitty: nil, inline: nil)
        let reported = report.reportedCellPixels.map { RenderSize(width: $0.width, height: $0.height) }
        switch decision.graphics {
        case .kitty:
            guard let cell = KittyOutput.cellSize(fd: 1, reported: reported) else {
                warn("the terminal reports no cell size in pixels; using cells")
                choice.decision.graphics = .cells
                return choice
            }
            choice.kitty = KittySetup(cell: cell, reportedCell: reported, tmux: decision.tmux)
        case .sixel, .iterm2:
            choice.inline = inlineImageSetup(decision.graphics, report: report)
            choice.inline?.tmux = decision.tmux
            if choice.inline == nil { choice.decision.graphics = .cells }
        case .cells:
            break
        }
        return choice
    }

    func warn(_ message: String) {
        TerminalOutput.write(2, "animplay: warning: \(message)\n")
    }

    /// The process environment as a dictionary.
    static func environment() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return env
    }
}
