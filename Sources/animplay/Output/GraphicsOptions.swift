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
        "Real pixels or cells: auto (detect the terminal), kitty, sixel, iterm2 or cells.",
        valueName: "MODE"))
    var graphicsArgument: String = "auto"

    func validate() throws {
        guard GraphicsRequest(argument: graphicsArgument) != nil else {
            throw ValidationError("--graphics must be auto, kitty, sixel, iterm2 or cells, got '\(graphicsArgument)'")
        }
    }

    /// `--graphics` parsed (validated above).
    var request: GraphicsRequest { GraphicsRequest(argument: graphicsArgument) ?? .auto }

    /// Decides the output: `--graphics`, else the environment, else the terminal's answers.
    /// Prints one warning line (before the screen starts) when graphics were wanted but cannot
    /// be used; the plan is then cells.
    /// `memoryBytes` (`--max-memory-mb`) bounds a screen-sized frame of the pixel outputs.
    func plan(_ report: TerminalReport, symbols: SymbolSet, kittyMedium: KittyMedium = .direct,
              memoryBytes: Int = DecodeLimits.default.maxDecodedBytes) -> OutputPlan {
        var rows: Int32 = 24, cols: Int32 = 80
        _ = animplay_window_size(1, &rows, &cols)
        let made = OutputPlan.decide(request, report: report, env: Self.environment(),
                                     tmuxAllowsPassthrough: Self.tmuxAllowsPassthrough,
                                     windowCell: TerminalOutput.windowCellSize(fd: 1), symbols: symbols,
                                     kittyMedium: kittyMedium,
                                     screen: (columns: Int(cols), rows: Int(rows)), memoryBytes: memoryBytes)
        // The warning can hold the terminal's own numbers: escaped like every message.
        if let warning = made.warning { StandardError.write("animplay: warning: \(warning)\n") }
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
