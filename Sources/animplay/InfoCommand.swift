import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe an animation: format, canvas, frames, timing, plays.",
        discussion: """
        Reads only the headers unless --decode is given. Per frame: the rectangle, the stored \
        delay and the display delay (browsers show stored delays of 10 ms or less as 100 ms), \
        the disposal and blend operations, and whether the frame is a keyframe (random access \
        replays from it). Damaged files list what was recovered under warnings.
        """
    )

    @OptionGroup var source: SourceOptions
    @OptionGroup var decodeOptions: DecodeOptionGroup

    @Flag(help: "Print one JSON object (keys: file, format, width, height, frameCount, plays, durationMs, frames[], warnings[]); one per line for several files described in turn.")
    var json = false

    @Flag(help: "Also decode and composite every frame: per-frame problems, throughput and peak memory.")
    var decode = false

    @Flag(help: "Several files: describe them as the frames of one animation (the default when they are all still images of one size).")
    var sequence = false

    @Flag(name: .customLong("in-turn"), help: "Several files: describe each on its own, in order (the default unless they are all still images of one size).")
    var inTurn = false

    func validate() throws {
        if sequence && inTurn { throw ValidationError("give --sequence or --in-turn, not both") }
    }

    func run() throws {
        // Several files that `play` would play in turn are described in turn, each as `info`
        // describes it alone: one report each (a blank line apart; JSON Lines with --json). A
        // file that cannot be read gets its one-line error where its report would be, and the
        // last such error's status is the exit status.
        let files = source.files
        guard files.count > 1, !sequence,
              inTurn || Playlist.reading(of: files, options: decodeOptions.decodeOptions) == .inTurn else {
            try reportingFailures { try describe(try source.open(decodeOptions).decoder, name: source.displayName) }
            return
        }
        var failed: CLIFailure?
        for (i, name) in files.enumerated() {
            do throws(CLIFailure) {
                let opened = try source.openOne(name, decodeOptions, progressive: false)
                let shown = SourceOptions.shown(name)
                source.warnIfEndedEarly(opened.spool, name: shown)
                if i > 0 && !json { StandardOutput.write("\n") }
                try describe(opened.decoder, name: shown)
            } catch {
                StandardError.line(error.line)
                failed = error
            }
        }
        if let failed { throw ExitCode(failed.code) }
    }

    /// `info`'s report of one animation (`name` as messages show it).
    private func describe(_ decoder: any AnimationDecoder, name: String) throws(CLIFailure) {
        var stats: InfoReport.DecodeStats?
        if decode {
            let compositor: Compositor
            do { compositor = try Compositor(decoder: decoder) } catch {
                throw CLIFailure(file: name, error: error)
            }
            let t0 = MonotonicClock.seconds()
            for i in 0..<decoder.info.frameCount { compositor.frame(at: i) }
            let dt = max(MonotonicClock.seconds() - t0, 1e-9)
            let mpx = Double(decoder.info.width * decoder.info.height * decoder.info.frameCount) / 1e6
            stats = .init(problems: compositor.problems, seconds: dt, megapixelsPerSecond: mpx / dt,
                          peakRSSBytes: ProcessStats.peakRSSBytes())
        }
        let out = json ? InfoReport.json(decoder.info, file: name, decode: stats) + "\n"
                       : InfoReport.text(decoder.info, file: name, decode: stats)
        StandardOutput.write(out)
    }
}
