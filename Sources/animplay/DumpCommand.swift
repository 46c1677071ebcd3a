import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write composited frames as PPM, PAM or PNG files.",
        discussion: """
        Writes DIR/frame-NNNN.ppm (or .pam, .png), one file per frame at canvas size, numbered by \
        frame index. PAM and PNG keep the alpha channel (RGBA, not premultiplied; PAM's TUPLTYPE \
        is RGB_ALPHA); PPM composites alpha over --background.
        """
    )

    @OptionGroup var source: SourceOptions
    @OptionGroup var decodeOptions: DecodeOptionGroup

    @Option(name: .shortAndLong, help: ArgumentHelp("Directory to write into (created if missing).", valueName: "DIR"))
    var output: String

    @Option(help: "Output format: ppm, pam or png.")
    var format: DumpFormat = .ppm

    @Option(help: ArgumentHelp("PPM background colour as RRGGBB hex.", valueName: "RRGGBB"))
    var background: String = "000000"

    // Named --range: --frames N belongs to the source options (sprite sheets keep N frames).
    @Option(parsing: .unconditional, help: ArgumentHelp("Only frames A through B (0-based, inclusive); A- or -B leave one end open.", valueName: "A-B"))
    var range: String?

    func validate() throws {
        guard parseHexColor(background) != nil else {
            throw ValidationError("--background must be six hex digits (RRGGBB), got '\(background)'")
        }
        if let range, parseRange(range) == nil {
            throw ValidationError("--range must look like A-B, A- or -B with 0 <= A <= B, got '\(range)'")
        }
    }

    func run() throws {
        try reportingFailures {
            let opened = try source.open(decodeOptions, warnEarlyEnd: false)
            let decoder = opened.decoder
            let count = decoder.info.frameCount
            let (a, b) = parseRange(range ?? "0-") ?? (0, nil)
            let last = min(b ?? (count - 1), count - 1)
            guard a < count else {
                throw CLIFailure(file: source.displayName, message: "--range starts at \(a) but there are only \(count) frames", code: 64)
            }
            try makeDirectories(output)
            let compositor: Compositor
            do { compositor = try Compositor(decoder: decoder) } catch {
                throw CLIFailure(file: source.displayName, error: error)
            }
            let bg = parseHexColor(background)!
            for i in a...last {
                let canvas = compositor.frame(at: i)
                var digits = String(i)
                if digits.count < 4 { digits = String(repeating: "0", count: 4 - digits.count) + digits }
                let path = output + "/frame-" + digits + "." + format.rawValue
                do {
                    let bytes: [UInt8]
                    switch format {
                    case .ppm: bytes = PNMWriter.encode(canvas, format: .ppm, background: bg)
                    case .pam: bytes = PNMWriter.encode(canvas, format: .pam)
                    case .png: bytes = try PNGWriter.encode(canvas)
                    }
                    try PNMWriter.write(bytes, to: path)
                } catch {
                    throw CLIFailure(file: nil, error: error)
                }
            }
            reportWarnings(decoder.info, problems: compositor.problems, file: source.displayName,
                           endedEarly: InputSource.earlyEnd(opened.spool))
        }
    }
}

/// What `dump` writes per frame.
enum DumpFormat: String, ExpressibleByArgument, CaseIterable { case ppm, pam, png }

/// "RRGGBB" (optionally with a leading #) to a colour.
func parseHexColor(_ s: String) -> (UInt8, UInt8, UInt8)? {
    let hex = s.hasPrefix("#") ? String(s.dropFirst()) : s
    guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
    return (UInt8(v >> 16), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF))
}

/// "A-B", "A-", "-B" or "A" to an inclusive range with an optional upper end.
func parseRange(_ s: String) -> (Int, Int?)? {
    let parts = s.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    if parts.count == 1 { guard let v = Int(parts[0]), v >= 0 else { return nil }; return (v, v) }
    let a = parts[0].isEmpty ? 0 : Int(parts[0])
    let b = parts[1].isEmpty ? nil : Int(parts[1])
    guard let a, a >= 0 else { return nil }
    if !parts[1].isEmpty { guard let b, b >= a else { return nil }; return (a, b) }
    return (a, nil)
}

/// mkdir -p.
func makeDirectories(_ path: String) throws(CLIFailure) {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for comp in path.split(separator: "/") {
        prefix += comp + "/"
        if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
            throw CLIFailure(file: path, message: "cannot create directory: \(String(cString: strerror(errno)))", code: 2)
        }
    }
    var st = stat()
    guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
        throw CLIFailure(file: path, message: "not a directory", code: 2)
    }
}
