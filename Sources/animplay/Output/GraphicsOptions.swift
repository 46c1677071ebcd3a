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
        "Real pixels or cells: auto (detect the terminal), kitty, sixel, iterm2 or cells.",
        valueName: "MODE"))
    var graphicsArgument: String = "auto"

    func validate() throws {
        guard GraphicsRequest(argument: graphicsArgument) != nil else {
            throw ValidationError("--graphics must be auto, kitty, sixel, iterm2 or cells, got '\(graphicsArgument)'")
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

    /// Decides the output: `--graphics`, else the environment, else the terminal's answers.
    /// Prints one warning line (before the screen starts) when graphics were wanted but cannot
    /// be used, and falls back to cells.
    func choose(_ report: TerminalReport) -> Choice {
        let env = Self.environment()
        let inTmux = env["TMUX"] != nil
        // Inside tmux, a second DA1 answer means the wrapped queries got through: passthrough
        // is on. Otherwise ask tmux itself.
        let passthrough = inTmux && (report.da1Count >= 2 || Self.tmuxAllowsPassthrough())
        let answers = report.answeredDA1
            ? TerminalGraphicsAnswers(kittyGraphics: report.kittyGraphics, sixel: report.sixel, version: report.version)
            : nil
        let decision = GraphicsPolicy.decide(GraphicsRequest(argument: graphicsArgument) ?? .auto, env: env,
                                             answers: answers, tmuxPassthrough: passthrough)
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

    /// Asks the tmux server whether passthrough is allowed (`allow-passthrough` on or all).
    static func tmuxAllowsPassthrough() -> Bool {
        guard let f = popen("tmux show -gv allow-passthrough 2>/dev/null", "r") else { return false }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = fread(&buf, 1, buf.count, f)
        pclose(f)
        let v = String(decoding: buf[..<n], as: UTF8.self).split(whereSeparator: \.isWhitespace).first ?? ""
        return v == "on" || v == "all"
    }
}
