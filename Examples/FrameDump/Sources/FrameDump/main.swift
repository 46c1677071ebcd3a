// frame-dump: AnimatedCore from another package, through its public API only.
//
//   frame-dump FILE OUTDIR      decode FILE (GIF, APNG or WebP; the bytes decide, not the name)
//   frame-dump - OUTDIR         decode the bytes read from stdin
//
// Writes OUTDIR/frame-NNNN.pam (RGBA, straight alpha), one per composited frame, and prints one
// line per frame: index, display delay in ms, and the frame's rectangle.
import AnimatedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String) -> Never {
    var line = "frame-dump: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: frame-dump FILE|- OUTDIR") }
let (input, outputDirectory) = (arguments[1], arguments[2])

do {
    // A file is read as it is needed; bytes in memory are wrapped as they are.
    let source = input == "-" ? try ByteSource(readingToEndOf: 0, name: "<stdin>")
                              : try ByteSource(path: input)
    let decoder = try AnimationLoader.open(source, options: DecodeOptions())
    let info = decoder.info
    print("\(info.format.rawValue) \(info.width)x\(info.height), \(info.frameCount) frames, plays \(info.plays == 0 ? "forever" : String(info.plays))")
    for warning in info.warnings { print("warning: \(warning)") }

    // The compositor applies each frame's disposal and blending, as a browser does.
    let compositor = try Compositor(decoder: decoder)
    for index in 0..<info.frameCount {
        let canvas = compositor.frame(at: index)
        let name = "frame-" + String(repeating: "0", count: max(0, 4 - String(index).count)) + String(index) + ".pam"
        try PNMWriter.write(PNMWriter.encode(canvas, format: .pam), to: outputDirectory + "/" + name)
        print("\(name) \(info.displayMs(at: index)) ms \(info.frames[index].rect)")
    }
    for (index, problem) in compositor.problems.sorted(by: { $0.key < $1.key }) {
        print("warning: frame \(index): \(problem)")
    }
} catch {
    // AnimatedError: a kind (for the exit status) and a one-line message.
    fail("\(input): \(error)")
}
