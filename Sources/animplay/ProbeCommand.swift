import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `animplay probe`: what the terminal answers to the queries `play` sends before it starts
/// (graphics support, cell size in pixels, colours). For bug reports and tests.
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Show what the terminal answers to animplay's queries (graphics, cell pixels, colours).",
        discussion: """
        Sends one round of queries (kitty graphics, XTVERSION, XTSMGRAPHICS, CSI 16 t, OSC 10/11, \
        OSC 4 for colours 0-15, DA1 last) and waits for the answers at most --budget-ms. Keys \
        typed meanwhile are dropped. Needs a terminal on standard output.
        """
    )

    @Option(parsing: .unconditional, help: ArgumentHelp("Time to wait for the answers, in milliseconds (default: ANIMPLAY_PROBE_MS, else 100).", valueName: "MS"))
    var budgetMs: Int?

    func validate() throws {
        if let budgetMs, !(1...10_000).contains(budgetMs) { throw ValidationError("--budget-ms must be 1 to 10000, got \(budgetMs)") }
    }

    func run() throws {
        try reportingFailures {
            guard isatty(1) != 0 else {
                throw CLIFailure(message: "standard output is not a terminal: there is nothing to ask", code: 1)
            }
            let outcome = TerminalProbe.run(budgetNanoseconds: budgetMs.map { UInt64($0) * 1_000_000 } ?? TerminalProbe.budgetNanoseconds)
            var lines = outcome.report.lines
            lines.append("keys typed meanwhile (dropped): \(outcome.typed.count)")
            // The replies are the terminal's text: escaped like every message.
            StandardOutput.write(lines.joined(separator: "\n") + "\n")
            TerminalProbe.absorbLate(outcome.late)
        }
    }
}
