import AnimatedCore
import ArgumentParser

/// Decoding limits and timing rules shared by every subcommand.
struct DecodeOptionGroup: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Refuse canvases with more pixels than this.", valueName: "N"))
    var maxPixels: Int = DecodeLimits.default.maxPixels

    @Option(name: .long, help: ArgumentHelp("Refuse canvases wider or taller than this.", valueName: "N"))
    var maxDimension: Int = DecodeLimits.default.maxDimension

    @Option(name: .long, help: ArgumentHelp("Cap on decoded pixel memory, in MiB.", valueName: "MB"))
    var maxMemoryMb: Int = DecodeLimits.default.maxDecodedBytes >> 20

    @Flag(name: .long, help: "Show stored delays as they are (browsers show delays of 10 ms or less as 100 ms).")
    var rawDelays = false

    var decodeOptions: DecodeOptions {
        var limits = DecodeLimits.default
        limits.maxPixels = maxPixels
        limits.maxDimension = maxDimension
        limits.maxDecodedBytes = maxMemoryMb << 20
        return DecodeOptions(limits: limits, timing: TimingPolicy(browserMinimumDelay: !rawDelays))
    }
}

/// What to play: one animation file (sprite sheets and frame sequences extend this).
struct SourceOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The image to open (GIF, PNG/APNG, WebP; the format is sniffed from the bytes).", valueName: "FILE"))
    var file: String

    /// Opens the source as a decoder.
    func open(_ decode: DecodeOptionGroup) throws(CLIFailure) -> any AnimationDecoder {
        do {
            return try AnimationLoader.open(path: file, options: decode.decodeOptions)
        } catch {
            throw CLIFailure(file: file, error: error)
        }
    }

    var displayName: String { file }
}

/// A failure reported as one line, `animplay: FILE: problem`, with a documented exit status.
struct CLIFailure: Error {
    var file: String?
    var message: String
    var code: Int32

    init(file: String?, error: any Error) {
        self.file = file
        if let e = error as? AnimatedError {
            message = e.description; code = e.exitCode
        } else {
            message = String(describing: error); code = 1
        }
    }
    init(file: String? = nil, message: String, code: Int32 = 1) {
        self.file = file; self.message = message; self.code = code
    }

    var line: String { "animplay: " + (file.map { "\($0): " } ?? "") + message }
}

/// Runs a subcommand body, turning `CLIFailure` into one line on stderr and an exit code.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let f as CLIFailure {
        StandardError.write(f.line + "\n")
        throw ExitCode(f.code)
    }
}
