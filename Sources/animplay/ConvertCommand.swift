import AnimatedCore
import ArgumentParser
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Write an animation as GIF, APNG or WebP.",
        discussion: """
        Takes every input `play` takes (a file, -, a URL, a folder or several files as frames, \
        --sprite, --atlas with --tag). The output format comes from OUT's extension (.gif, \
        .png/.apng, .webp) or --format. APNG is always lossless; WebP is lossless unless \
        --quality is given without --lossless; GIF is exact for frames of at most 256 colours \
        and quantised with libimagequant otherwise. The output is written to a temporary file \
        in OUT's folder and renamed when complete (a link is followed; an OUT that is not a \
        regular file, such as /dev/stdout or a FIFO, is written into when complete); OUT may \
        not be one of the inputs.

        Delays are written so that browsers show the source's times: GIF stores centiseconds \
        (each frame ends at the centisecond nearest to where it ends in the source, so the \
        total time stays right), and no format gets a delay of 10 ms or less (browsers show \
        those for 100 ms): such frames get 20 ms (GIF) or 11 ms and the next frames catch up.
        """
    )

    @OptionGroup var source: SourceOptions
    @OptionGroup var decodeOptions: DecodeOptionGroup

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "OUT"))
    var output: String

    @Option(help: "Output format (default: from OUT's extension).")
    var format: EncodedFormat?

    @Flag(help: "WebP: lossless frames (the default unless --quality is given).")
    var lossless = false

    @Option(parsing: .unconditional, help: ArgumentHelp("0-100. WebP: lossy quality (lossless: effort). GIF: quantiser quality for frames of more than 256 colours (default 90).", valueName: "Q"))
    var quality: Double?

    @Flag(help: "WebP: choose lossy or lossless per frame, whichever is smaller.")
    var mixed = false

    @Option(parsing: .unconditional, help: ArgumentHelp("WebP: compression method, 0 (fast) to 6 (small; default 4).", valueName: "M"))
    var method: Int = 4

    @Option(parsing: .unconditional, help: ArgumentHelp("WebP: minimum keyframe interval.", valueName: "N"))
    var kmin: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("WebP: maximum keyframe interval.", valueName: "N"))
    var kmax: Int?

    @Flag(help: "WebP lossless: keep the colour of fully transparent pixels too (byte-exact frames; by default libwebp may change it, which no viewer shows and which is often smaller).")
    var exact = false

    @Flag(help: "GIF: no dithering of quantised frames.")
    var noDither = false

    @Flag(help: "GIF: a local colour table on every frame (default: the first frame's palette is global, reused where a frame fits in it).")
    var localPalettes = false

    @Option(help: ArgumentHelp("GIF: blend partial alpha over this colour (RRGGBB); default: alpha below 128 is transparent.", valueName: "RRGGBB"))
    var background: String?

    @Option(name: .customLong("loop"), parsing: .unconditional, help: ArgumentHelp("Number of plays; 0 = forever (default: the source's).", valueName: "N"))
    var plays: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Playback rate: durations are divided by X (0.01 to 100).", valueName: "X"))
    var speed: Double = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Only frames A through B (0-based, inclusive); A- or -B leave one end open.", valueName: "A-B"))
    var range: String?

    @Option(help: "Order: normal, reverse or bounce.")
    var mode: PlaybackMode = .normal

    @Option(parsing: .unconditional, help: ArgumentHelp("Output size in pixels (area-average scaling).", valueName: "WxH"))
    var resize: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Scale factor for the output size (e.g. 0.5).", valueName: "F"))
    var scale: Double?

    var outputFormat: EncodedFormat? { format ?? EncodedFormat(fileName: output) }

    func validate() throws {
        guard outputFormat != nil else {
            throw ValidationError("cannot tell the output format from '\(output)': use .gif, .png, .apng or .webp, or --format")
        }
        if let quality, !(0...100).contains(quality) { throw ValidationError("--quality must be 0 to 100, got \(quality)") }
        if !(0...6).contains(method) { throw ValidationError("--method must be 0 to 6, got \(method)") }
        if let plays, plays < 0 { throw ValidationError("--loop must be 0 (forever) or more, got \(plays)") }
        if !(speed >= 0.01 && speed <= 100) { throw ValidationError("--speed must be 0.01 to 100, got \(speed)") }
        if let range, parseRange(range) == nil {
            throw ValidationError("--range must look like A-B, A- or -B with 0 <= A <= B, got '\(range)'")
        }
        if let background, parseHexColor(background) == nil {
            throw ValidationError("--background must be six hex digits (RRGGBB), got '\(background)'")
        }
        if resize != nil && scale != nil { throw ValidationError("give --resize or --scale, not both") }
        if let resize, parseWxH(resize) == nil { throw ValidationError("--resize must be WxH in pixels (e.g. 320x240), got '\(resize)'") }
        if let scale, !(scale > 0 && scale <= 16) { throw ValidationError("--scale must be more than 0 and at most 16, got \(scale)") }
    }

    var encoderOptions: EncoderOptions {
        let format = outputFormat!
        var o = EncoderOptions()
        o.lossless = lossless || quality == nil
        o.quality = quality ?? (format == .gif ? 90 : 75)
        o.mixed = mixed
        o.method = method
        o.keyframeMin = kmin; o.keyframeMax = kmax
        o.keepTransparentColor = exact
        o.dither = !noDither
        o.globalPalette = !localPalettes
        if let background, let c = parseHexColor(background) { o.background = (c.0, c.1, c.2) }
        return o
    }

    func run() throws {
        try reportingFailures {
            let started = MonotonicClock.seconds()
            let format = outputFormat!
            try refuseOverwritingInput()
            let decoder = try source.open(decodeOptions).decoder
            let compositor: Compositor
            do { compositor = try Compositor(decoder: decoder) } catch {
                throw CLIFailure(file: source.displayName, error: error)
            }
            let info = compositor.info
            var transcoder = Transcoder()
            transcoder.mode = mode
            transcoder.speed = speed
            if let range, let (a, b) = parseRange(range) {
                guard a < info.frameCount else {
                    throw CLIFailure(file: source.displayName, message: "--range starts at \(a) but there are only \(info.frameCount) frames", code: 64)
                }
                transcoder.range = a...(b ?? Int.max)
            }
            var width = info.width, height = info.height
            if let resize, let (w, h) = parseWxH(resize) { (width, height) = (w, h) }
            if let scale { width = max(1, Int((Double(width) * scale).rounded())); height = max(1, Int((Double(height) * scale).rounded())) }
            if width != info.width || height != info.height {
                transcoder.size = RenderSize(width: width, height: height)
                transcoder.limits = decodeOptions.decodeOptions.limits
                // Before the encoder is made (it holds frames of the output size).
                do throws(AnimatedError) { try Transcoder.checkOutput(RenderSize(width: width, height: height), transcoder.limits) } catch {
                    throw CLIFailure(file: output, message: "too large: \(error.message) (see --max-pixels, --max-dimension, --max-memory-mb)", code: 4)
                }
            }

            let interrupt = InterruptWatch()
            defer { interrupt.uninstall() }
            let temp = try TemporaryOutput(next: output)
            let progress = ProgressBar(enabled: isatty(2) != 0)
            var written = 0
            do throws(AnimatedError) {
                let sink = FileSink(fd: temp.fd, name: output)
                let encoder = try AnimationEncoders.make(format, width: width, height: height, plays: plays ?? info.plays,
                                                         options: encoderOptions, sink: sink)
                try transcoder.run(compositor, into: encoder) { (done, total) throws(AnimatedError) in
                    if interrupt.received { throw AnimatedError.system("interrupted") }
                    progress.show(done, of: total)
                }
                try sink.flush()
                progress.clear()
                written = try temp.commit()
            } catch {
                progress.clear()
                temp.discard()
                throw CLIFailure(file: error.kind == .output ? output : source.displayName, error: error)
            }
            reportWarnings(decoder.info, problems: compositor.problems, file: source.displayName)
            let frames = transcoder.order(frameCount: info.frameCount).count
            let seconds = MonotonicClock.seconds() - started
            let inSize = source.files.reduce(0) { $0 + fileSize($1) }
            StandardError.line("\(output): \(frames) frames, \(width)x\(height), "
                + "\(byteCount(inSize)) -> \(byteCount(written)), \(decimal(seconds, places: 2)) s")
        }
    }

    /// OUT must not be one of the inputs (or the folder's files): it would be read while replaced.
    private func refuseOverwritingInput() throws(CLIFailure) {
        var out = stat()
        guard stat(output, &out) == 0 else { return }
        var inputs = source.files
        if inputs.count == 1, ImageFolder.isDirectory(inputs[0]) {
            inputs = (try? ImageFolder.list(inputs[0]).files) ?? []
        }
        if let atlas = source.atlas { inputs.append(atlas) }
        for name in inputs {
            var st = stat()
            if stat(name, &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino {
                throw CLIFailure(file: output, message: "is an input: refusing to overwrite it", code: 64)
            }
        }
    }
}

extension EncodedFormat: ExpressibleByArgument {}

/// Size of a file in bytes (0 when it cannot be read: stdin, URLs).
func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : 0
}

/// "1.2 MB", "340 kB", "12 B".
func byteCount(_ n: Int) -> String {
    if n >= 1_000_000 { return decimal(Double(n) / 1e6, places: 1) + " MB" }
    if n >= 10_000 { return "\(n / 1000) kB" }
    return "\(n) B"
}

/// `v` with `places` decimals (no Foundation).
func decimal(_ v: Double, places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let n = Int((v * scale).rounded())
    let whole = n / Int(scale), frac = n % Int(scale)
    guard places > 0 else { return String(whole) }
    let f = String(frac)
    return "\(whole)." + String(repeating: "0", count: places - f.count) + f
}
