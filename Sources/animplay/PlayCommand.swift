import AnimatedCore
import ArgumentParser

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play an animation in the terminal (the default subcommand).",
        discussion: "Playback is not implemented yet: this shows `info` for now."
    )

    @OptionGroup var source: SourceOptions
    @OptionGroup var decodeOptions: DecodeOptionGroup

    func run() throws {
        try reportingFailures {
            let decoder = try source.open(decodeOptions)
            StandardOutput.write(InfoReport.text(decoder.info, file: source.displayName))
        }
    }
}
