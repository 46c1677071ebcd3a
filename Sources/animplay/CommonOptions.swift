import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Decoding limits and timing rules shared by every subcommand.
struct DecodeOptionGroup: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Refuse canvases with more pixels than this.", valueName: "N"))
    var maxPixels: Int = DecodeLimits.default.maxPixels

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Refuse canvases wider or taller than this.", valueName: "N"))
    var maxDimension: Int = DecodeLimits.default.maxDimension

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Cap on decoded pixel memory, in MiB.", valueName: "MB"))
    var maxMemoryMb: Int = DecodeLimits.default.maxDecodedBytes >> 20

    @Flag(name: .long, help: "Show stored delays as they are (browsers show delays of 10 ms or less as 100 ms); an animation whose delays are all 0 plays one frame per display tick (1/--max-fps).")
    var rawDelays = false

    func validate() throws {
        if maxPixels < 1 { throw ValidationError("--max-pixels must be 1 or more, got \(maxPixels)") }
        if maxDimension < 1 { throw ValidationError("--max-dimension must be 1 or more, got \(maxDimension)") }
        try checkMegabytes(maxMemoryMb, "--max-memory-mb")
        // Said once, here: a value past what the process can get is held to its ceiling.
        let ceiling = MemoryCeiling.current
        if maxMemoryMb != DecodeLimits.default.maxDecodedBytes >> 20 && maxMemoryMb << 20 > ceiling.bytes {
            StandardError.line("animplay: warning: --max-memory-mb \(maxMemoryMb) is more than this process can use: "
                + "decoding is held to \(ceiling.bytes >> 20) MiB, half of \(ceiling.source)")
        }
    }

    /// `--max-memory-mb` in bytes, held to the process's `MemoryCeiling` (past it, a canvas's
    /// allocation would fail, which is fatal, rather than be refused in one line).
    var memoryBytes: Int { min(maxMemoryMb << 20, MemoryCeiling.current.bytes) }

    var decodeOptions: DecodeOptions {
        var limits = DecodeLimits.default
        limits.maxPixels = maxPixels
        limits.maxDimension = maxDimension
        limits.maxDecodedBytes = memoryBytes
        return DecodeOptions(limits: limits, timing: TimingPolicy(browserMinimumDelay: !rawDelays))
    }
}

/// Options in MiB go to bytes as `value << 20`, which drops high bits silently: a huge value
/// would become a negative limit (`--max-memory-mb 9223372036854775807` refused a 96x96 GIF with
/// "limit -1024 KiB"). 1 to 1048576 (1 TiB) is accepted.
func checkMegabytes(_ value: Int, _ option: String) throws(ValidationError) {
    guard (1...(1 << 20)).contains(value) else { throw ValidationError("\(option) must be 1 to 1048576, got \(value)") }
}

/// What to play: one animation file; a still image cut into frames (`--sprite CxR` or
/// `--atlas FILE.json`); or a frame sequence (several files, or a folder of images).
struct SourceOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("""
        The image to read (GIF, PNG/APNG, WebP; the format is sniffed from the bytes). Several \
        still images of one size, or one folder (its images in natural order: frame2 before \
        frame10), are the frames of one animation; other files `play` plays one after another \
        and `info` describes one by one (--in-turn, --sequence force either; `dump` and \
        `convert` always take several files as frames, an animation among them giving all of \
        its frames, so that `convert a.gif b.gif -o ab.gif` joins them). `-` (or no FILE with a pipe on standard input) reads standard \
        input; FIFOs and process substitution work too. http:// and https:// URLs are \
        downloaded and cached (`play` starts while the bytes arrive).
        """, valueName: "FILE"))
    var givenFiles: [String] = []

    /// The inputs: the files given, or standard input when none is and it is not a terminal.
    var files: [String] { givenFiles.isEmpty ? [InputSource.stdinName] : givenFiles }

    @OptionGroup var network: NetworkOptions

    @Option(help: ArgumentHelp("Take a still image as a sprite sheet of C columns by R rows of equal cells, row-major.", valueName: "CxR"))
    var sprite: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Keep only the first N frames (sheets often end with empty cells).", valueName: "N"))
    var frames: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Sprite grid: pixels around the whole sheet.", valueName: "PX"))
    var margin: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Sprite grid: pixels between cells.", valueName: "PX"))
    var spacing: Int?

    @Option(help: ArgumentHelp("Cut the image by a TexturePacker or Aseprite JSON atlas (frame rects, durations, tags).", valueName: "FILE.json"))
    var atlas: String?

    @Option(help: ArgumentHelp("With --atlas: only the frames of this Aseprite tag, in its direction.", valueName: "NAME"))
    var tag: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Frames per second. Sheets and sequences: default 10 (an atlas's durations apply unless --fps or --delay is given); an animation: every frame is retimed to 1/F s (--speed then scales that).", valueName: "F"))
    var fps: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Milliseconds per frame (instead of --fps): for sheets and sequences, and to retime every frame of an animation.", valueName: "MS"))
    var delay: Double?

    @Option(help: ArgumentHelp("Frame sequences of stills: each frame's own delay in milliseconds, comma-separated, one per frame (e.g. 100,100,300); an animation among the files keeps its own.", valueName: "MS,MS,..."))
    var delays: String?

    /// `--delays` as numbers (nil when not given or not a list of numbers).
    var delayList: [Double]? {
        guard let delays else { return nil }
        let parts = delays.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0.filter { $0 != " " })) }
        return parts.contains(nil) ? nil : parts.map { $0! }
    }

    private var isSheet: Bool { sprite != nil || atlas != nil }

    /// The one regular file (by path) that `open` reads as it is, if that is what was given:
    /// not a sheet, folder, sequence, URL, standard input or stream.
    var plainFile: String? {
        guard files.count == 1, !isSheet, !HTTPDownload.isURL(files[0]), InputSource.urlScheme(files[0]) == nil,
              !InputSource.readsStandardInput(files[0]) else { return nil }
        var st = stat()
        guard stat(files[0], &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return files[0]
    }

    func validate() throws {
        if givenFiles.isEmpty && isatty(0) != 0 {
            throw ValidationError("no image given: name a FILE, or pipe one into animplay (cat x.gif | animplay -)")
        }
        if let sprite, parseWxH(sprite) == nil {
            throw ValidationError("--sprite must be CxR with positive numbers of columns and rows (e.g. 8x4), got '\(sprite)'")
        }
        if sprite != nil && atlas != nil { throw ValidationError("--sprite and --atlas cannot be combined: choose a grid or an atlas") }
        if sprite == nil && (margin != nil || spacing != nil) { throw ValidationError("--margin and --spacing apply to --sprite grids") }
        if let m = margin, m < 0 { throw ValidationError("--margin must be 0 or more pixels, got \(m)") }
        if let s = spacing, s < 0 { throw ValidationError("--spacing must be 0 or more pixels, got \(s)") }
        if tag != nil && atlas == nil { throw ValidationError("--tag needs --atlas") }
        if fps != nil && delay != nil { throw ValidationError("give --fps or --delay, not both") }
        // At least a frame every 1000 s: 4.9e-324 made every delay infinite ("duration null").
        if let fps, !(fps >= 0.001 && fps <= 1000) { throw ValidationError("--fps must be 0.001 to 1000, got \(fps)") }
        if let delay, !(delay >= 1 && delay <= 3_600_000) { throw ValidationError("--delay must be 1 to 3600000 ms, got \(delay)") }
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        if let delays {
            guard let list = delayList, !list.isEmpty else {
                throw ValidationError("--delays must be milliseconds separated by commas (e.g. 100,100,300), got '\(delays)'")
            }
            if let bad = list.first(where: { !($0 >= 1 && $0 <= 3_600_000) }) {
                throw ValidationError("--delays: each delay must be 1 to 3600000 ms, got \(bad)")
            }
            if fps != nil || delay != nil { throw ValidationError("give --delays, or --fps or --delay, not both") }
            if isSheet { throw ValidationError("--delays applies to frame sequences (several files or a folder)") }
        }
        if files.count > 1 && isSheet { throw ValidationError("--sprite and --atlas take one image, got \(files.count) files") }
    }

    /// The user's delay per frame, if given.
    private var delayMs: Double? { delay ?? fps.map { 1000 / $0 } }

    /// An animation file: `--frames` cuts sheets and `--delays` times sequences; refused here.
    private func refuseSheetOnlyOptions(_ name: String) throws(CLIFailure) {
        if frames != nil { throw CLIFailure(file: name, message: "--frames applies to sprite sheets (--sprite, --atlas) and frame sequences (--range selects frames of an animation)", code: 64) }
        if delays != nil { throw CLIFailure(file: name, message: "--delays applies to frame sequences (several files or a folder)", code: 64) }
    }

    /// `options` with every frame retimed to `--fps`/`--delay`, if given (stored delays, and the
    /// browsers' 10 ms rule, then no longer matter: `--raw-delays` contradicts it).
    private func retimed(_ options: DecodeOptions, _ decode: DecodeOptionGroup) throws(CLIFailure) -> DecodeOptions {
        guard let ms = delayMs else { return options }
        if decode.rawDelays {
            throw CLIFailure(message: "--raw-delays shows the stored delays; --fps and --delay replace them: give one or the other", code: 64)
        }
        var o = options
        o.timing.frameMs = ms
        return o
    }

    /// Opens the source as a decoder (streams read to their end); `warnEarlyEnd`: one warning
    /// line now if the stream ended early (false: the caller reports it with the others).
    func open(_ decode: DecodeOptionGroup, warnEarlyEnd: Bool = true) throws(CLIFailure) -> OpenedInput {
        let opened = try open(decode, progressive: false)
        if warnEarlyEnd { warnIfEndedEarly(opened.spool) }
        return opened
    }

    /// One warning line if a stream ended with an error after some bytes (they are shown);
    /// `name`: the input's as messages show it (default: the source's).
    func warnIfEndedEarly(_ spool: SpoolBuffer?, name: String? = nil) {
        if let note = InputSource.earlyEnd(spool) { StandardError.line("animplay: \(name ?? displayName): warning: \(note)") }
    }

    /// After playing a cached copy revalidated in the background: one line if the server has
    /// a newer version or could not confirm the copy. Waits up to 2 s for the answer (a 304
    /// takes one round trip; without one by then, nothing is known and nothing is said), and
    /// half a second more for a newer version still arriving (quitting does not wait for a
    /// whole download: the next run fetches it).
    func reportRevalidation(_ revalidation: BackgroundRevalidation?) {
        guard let revalidation, revalidation.proceeded else { return }
        var state = revalidation.wait(seconds: 2, answerOnly: true)
        if state == .newVersionArriving { state = revalidation.wait(seconds: 0.5) }
        let line: String
        switch state {
        case .pending, .notModified: return
        case .newVersionArriving:
            line = "note: played the cached copy; the server has a newer version, which had not finished arriving (the next run downloads it)"
        case .newVersionStored:
            line = "note: played the cached copy; the server has a newer version, now cached for the next run"
        case .newVersionNotCached:
            line = "note: played the cached copy; the server has a newer version, which it does not let be cached (the next run downloads it)"
        case .unreachable(let why):
            line = "warning: server unreachable (\(why)); played the cached copy"
        case .failed(let why):
            line = "warning: could not revalidate the cached copy (\(why)); played it anyway"
        }
        StandardError.line("animplay: \(displayName): \(line)")
    }

    /// The decoder opened before the arguments were parsed (`EarlyStart`), as `open` would give
    /// it; nil when `open` would open otherwise (another file, not a plain file, options other
    /// than `ahead`'s: retimed, other limits), and the caller opens as usual. Refusals and
    /// errors are `open`'s.
    func openAhead(_ decode: DecodeOptionGroup, _ ahead: DecoderAhead) throws(CLIFailure) -> OpenedInput? {
        guard let file = plainFile, file == ahead.path else { return nil }
        try refuseSheetOnlyOptions(file)
        let options = try retimed(decode.decodeOptions, decode)
        guard options.opensAlike(ahead.options) else { return nil }
        do throws(AnimatedError) { return OpenedInput(try ahead.decoder()) } catch {
            throw CLIFailure(file: file, error: error)
        }
    }

    /// Opens the source as a decoder; with `progressive`, a stream may still be arriving (its
    /// spool is returned), and a cached copy may be revalidated in the background.
    func open(_ decode: DecodeOptionGroup, progressive: Bool, watch: (@Sendable (SpoolBuffer) -> Void)? = nil) throws(CLIFailure) -> OpenedInput {
        let options = decode.decodeOptions
        let first = files[0]
        do {
            if files.count > 1 || ImageFolder.isDirectory(first) {
                if isSheet { throw CLIFailure(file: first, message: "--sprite and --atlas take an image, not a folder", code: 64) }
                let delay = delayMs ?? SpriteSheetSpec.defaultDelayMs
                return OpenedInput(files.count > 1
                    ? try FrameSequenceDecoder(files: files, delayMs: delay, delaysMs: delayList, frameLimit: frames, options: options)
                    : try FrameSequenceDecoder(folder: first, delayMs: delay, delaysMs: delayList, frameLimit: frames, options: options))
            }
            if !isSheet {
                try refuseSheetOnlyOptions(first)
                return try InputSource.open(first, options: retimed(options, decode), network: network, progressive: progressive, watch: watch)
            }
            let layout: SpriteSheetSpec.Layout
            if let sprite, let (columns, rows) = parseWxH(sprite) {
                layout = .grid(SpriteGrid(columns: columns, rows: rows, margin: margin ?? 0, spacing: spacing ?? 0))
            } else {
                let path = atlas!
                let atlas: SpriteAtlas
                do { atlas = try AtlasParser.load(path: path) } catch {
                    throw CLIFailure(file: path, error: error)
                }
                // A tag the atlas lacks is a mistake on the command line, not in the image.
                if let tag, !atlas.tags.contains(where: { $0.name == tag }) {
                    let names = atlas.tags.map { $0.name.debugDescription }.joined(separator: ", ")
                    throw CLIFailure(file: path, message: atlas.tags.isEmpty
                        ? "--tag \(tag.debugDescription): the atlas has no tags"
                        : "--tag \(tag.debugDescription): no such tag; the atlas has \(names)", code: 64)
                }
                layout = .atlas(atlas, tag: tag)
            }
            let spec = SpriteSheetSpec(layout: layout, frameLimit: frames, delayMs: delayMs)
            // The sheet comes from wherever an image may (standard input, a FIFO, a URL): `cat
            // sheet.png | animplay - --sprite 8x4` said "-: No such file or directory".
            var sheet = try InputSource.open(first, options: options, network: network, progressive: false)
            sheet.decoder = try SpriteSheetDecoder(sheet: sheet.decoder, spec: spec, options: options)
            return sheet
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure(file: first, error: error)
        }
    }

    /// One of several files played in turn, opened on its own: a folder among them is its
    /// images as one animation (as it is alone), anything else never a frame sequence.
    func openOne(_ name: String, _ decode: DecodeOptionGroup, progressive: Bool,
                 watch: (@Sendable (SpoolBuffer) -> Void)? = nil) throws(CLIFailure) -> OpenedInput {
        if ImageFolder.isDirectory(name) {
            do {
                return OpenedInput(try FrameSequenceDecoder(folder: name, delayMs: delayMs ?? SpriteSheetSpec.defaultDelayMs,
                                                            delaysMs: delayList, frameLimit: frames, options: decode.decodeOptions))
            } catch {
                throw CLIFailure(file: name, error: error)
            }
        }
        try refuseSheetOnlyOptions(name)
        do {
            return try InputSource.open(name, options: retimed(decode.decodeOptions, decode), network: network, progressive: progressive,
                                        watch: watch)
        } catch {
            throw CLIFailure(file: Self.shown(name), error: error)
        }
    }

    /// One input as messages name it: `<stdin>` for `-`, a URL with its password masked.
    static func shown(_ name: String) -> String {
        name == InputSource.stdinName ? "<stdin>" : URLText.masked(name)
    }

    /// The source in messages (a URL's password masked: `URLText`).
    var displayName: String {
        files.count == 1 ? Self.shown(files[0])
                         : "\(files[0]) ... \(files[files.count - 1]) (\(files.count) files)"
    }
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
            if e.kind == .system { self.file = nil }   // the system's refusal, not the file's fault
        } else {
            message = String(describing: error); code = 1
        }
    }
    init(file: String? = nil, message: String, code: Int32 = 1) {
        self.file = file; self.message = message; self.code = code
    }

    /// The line printed (a URL's password masked; controls are escaped when written).
    var line: String { "animplay: " + (file.map { "\(URLText.masked($0)): " } ?? "") + message }
}

/// Warnings about a damaged but usable source, one line each on stderr: the early end of a
/// stream (`endedEarly`), what the decoder noticed (the warnings `info` lists), then the frames
/// found corrupt while compositing (the problems `info --decode` lists per frame). `play` calls
/// it after the terminal is restored.
func reportWarnings(_ info: AnimationInfo, problems: [Int: String], file: String, endedEarly: String? = nil) {
    for line in warningLines(info.warnings, problems: problems, endedEarly: endedEarly) {
        StandardError.line("animplay: \(file): warning: \(line)")
    }
}

/// One line per cause: a stream that ended early explains every truncation after it (the
/// decoder's and the compositor's), and the decoder's truncation warning explains the
/// compositor's "image data truncated" for the same file.
func warningLines(_ warnings: [String], problems: [Int: String], endedEarly: String?) -> [String] {
    let truncation = { (s: String) in s.contains("truncated") }
    // Each problem names its frame already ("invalid image: frame 2: image data truncated").
    let sortedProblems = problems.sorted(by: { $0.key < $1.key }).map(\.value)
    if let endedEarly {
        return [endedEarly] + warnings.filter { !truncation($0) } + sortedProblems.filter { !truncation($0) }
    }
    let explained = warnings.contains(where: truncation)
    return warnings + sortedProblems.filter { !(explained && truncation($0)) }
}

/// Runs a subcommand body, turning `CLIFailure` into one line on stderr and an exit code.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let f as CLIFailure {
        StandardError.line(f.line)
        throw ExitCode(f.code)
    }
}
