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

    @Flag(help: "Print one JSON object (keys: format, width, height, frameCount, plays, durationMs, frames[], warnings[]).")
    var json = false

    @Flag(help: "Also decode and composite every frame: per-frame problems, throughput and peak memory.")
    var decode = false

    func run() throws {
        try reportingFailures {
            let decoder = try source.open(decodeOptions).decoder
            var stats: InfoReport.DecodeStats?
            if decode {
                let compositor: Compositor
                do { compositor = try Compositor(decoder: decoder) } catch {
                    throw CLIFailure(file: source.displayName, error: error)
                }
                let t0 = MonotonicClock.seconds()
                for i in 0..<decoder.info.frameCount { compositor.frame(at: i) }
                let dt = max(MonotonicClock.seconds() - t0, 1e-9)
                let mpx = Double(decoder.info.width * decoder.info.height * decoder.info.frameCount) / 1e6
                stats = .init(problems: compositor.problems, seconds: dt, megapixelsPerSecond: mpx / dt,
                              peakRSSBytes: ProcessStats.peakRSSBytes())
            }
            let out = json ? InfoReport.json(decoder.info, file: source.displayName, decode: stats) + "\n"
                           : InfoReport.text(decoder.info, file: source.displayName, decode: stats)
            StandardOutput.write(out)
        }
    }
}
