import AnimatedCore
import AnimatedTerminal
import ArgumentParser
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// `--graphics`: how frames reach the terminal, and the plan made before playback starts.
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

    /// `--graphics` parsed (validated above).
    var request: GraphicsRequest { GraphicsRequest(argument: graphicsArgument) ?? .auto }

    /// `--graphics cells` (with or without `!`): no graphics query is needed.
    var wantsCells: Bool { request.named == .cells }

    /// Decides the output: `--graphics`, else the environment, else the terminal's answers.
    /// Prints one warning line (before the screen starts) when graphics were wanted but cannot
    /// be used (a named mode the terminal lacks: auto's choice; no cell size: cells); a mode
    /// required with `!` that the terminal lacks is an error.
    /// `memoryBytes` (`--max-memory-mb`) bounds a screen-sized frame of the pixel outputs.
    func plan(_ report: TerminalReport, symbols: SymbolSet, kittyMedium: KittyMedium = .direct,
              memoryBytes: Int = DecodeLimits.default.maxDecodedBytes) throws(CLIFailure) -> OutputPlan {
        var rows: Int32 = 24, cols: Int32 = 80
        _ = animplay_window_size(1, &rows, &cols)
        let made = OutputPlan.decide(request, report: report, env: Self.environment(),
                                     tmuxAllowsPassthrough: TmuxClient.allowsPassthrough,
                                     windowCell: TerminalOutput.windowCellSize(fd: 1), symbols: symbols,
                                     kittyMedium: kittyMedium,
                                     screen: (columns: Int(cols), rows: Int(rows)), memoryBytes: memoryBytes)
        if case .required = request, let why = made.decision.unsupported {
            throw CLIFailure(message: "--graphics \(graphicsArgument): \(why)")
        }
        // The warning can hold the terminal's own numbers: escaped like every message.
        if let warning = made.warning { StandardError.line("animplay: warning: \(warning)") }
        return made.plan
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
