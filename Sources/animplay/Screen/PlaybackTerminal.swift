import AnimatedCore
import AnimatedTerminal

/// The terminal as play and `--grid` find it before anything else owns the tty: one round of
/// queries (the kitty medium's among them), the background colour, `--symbols` lowered to what
/// the terminal shows, and the output planned from all that. Probed before the first frame is
/// prepared because the background colour and the output decide how frames are prepared.
struct PlaybackTerminal {
    var probe: TerminalProbe.Outcome
    let medium: KittyMedium
    let background: BackgroundMode
    /// Why the background is not what was asked, if so (shown on the status line).
    let backgroundNote: String?
    let symbolOptions: SymbolOptions
    /// The line to print when `--symbols` had to be lowered and the output is cells.
    let symbolWarning: String?
    let plan: OutputPlan

    /// Before leaving: late probe replies must not reach the shell, and shared-memory objects
    /// kitty did not read go (after a DA1 round trip: kitty has then read all it will).
    func finish() { Self.finish(medium: medium, late: probe.late) }

    fileprivate static func finish(medium: KittyMedium, late: TerminalProbe.LateReplies?) {
        if medium == .sharedMemory { TerminalProbe.settle(); KittyStager.removeLeftovers() }
        TerminalProbe.absorbLate(late)
    }
}

extension Play {
    /// Probes the terminal and plans the output (see `PlaybackTerminal`). The caller calls
    /// `finish()` on every way out; when planning fails this does it before throwing.
    func probePlaybackTerminal() throws(CLIFailure) -> PlaybackTerminal {
        let mediumProbe = graphicsOptions.wantsCells ? nil
            : KittyMediumProbe(env: GraphicsOptions.environment())
        let probe = TerminalProbe.run(extraQueries: mediumProbe?.queries ?? [])
        let medium = mediumProbe?.finish(probe.report) ?? .direct
        // Objects of earlier runs that were killed before kitty read them (once per run).
        if medium == .sharedMemory { KittyStager.removeStaleObjects() }
        let (background, backgroundNote) = BackgroundRequest(bg)!.resolve(probe.report)
        let (symbolOptions, symbolWarning) = self.symbolOptions.resolved(for: probe.report, env: GraphicsOptions.environment())
        let plan: OutputPlan
        do {
            plan = try graphicsOptions.plan(probe.report, symbols: symbolOptions.symbols, kittyMedium: medium,
                                            memoryBytes: decodeOptions.memoryBytes)
        } catch {
            PlaybackTerminal.finish(medium: medium, late: probe.late)
            throw error
        }
        return PlaybackTerminal(probe: probe, medium: medium, background: background, backgroundNote: backgroundNote,
                                symbolOptions: symbolOptions, symbolWarning: plan.isPixels ? nil : symbolWarning, plan: plan)
    }
}
