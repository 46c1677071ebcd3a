// pnm-play: registers a PPM/PAM coder with AnimatedCore and reads images through the
// library's unchanged loader.
//
//   pnm-play IMAGE OUTDIR        one image (PPM, PAM, or any built-in format): its frames
//   pnm-play FOLDER OUTDIR       a folder of images (PPM/PAM among them) as a frame sequence
//   pnm-play - OUTDIR            an image on stdin
//
// Writes OUTDIR/frame-NNNN.pam, one per composited frame, and prints the format, the size and
// one line per frame.
import AnimatedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String) -> Never {
    var line = "pnm-play: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: pnm-play IMAGE|FOLDER|- OUTDIR") }
let (input, outputDirectory) = (arguments[1], arguments[2])

// The one line a library user adds: PPM/PAM is tried first, then the built-in coders.
CoderRegistry.shared.add(PNMCoder())

do {
    let decoder: any AnimationDecoder
    if input == "-" {
        decoder = try AnimationLoader.open(try ByteSource(readingToEndOf: 0, name: "<stdin>"))
    } else if isDirectory(input) {
        decoder = try FrameSequenceDecoder(folder: input, delayMs: 100)
    } else {
        decoder = try AnimationLoader.open(path: input)
    }
    let info = decoder.info
    print("\(info.format.rawValue) \(info.width)x\(info.height), \(info.frameCount) frames")
    for warning in info.warnings { print("warning: \(warning)") }
    let compositor = try Compositor(decoder: decoder)
    for index in 0..<info.frameCount {
        let name = "frame-" + String(repeating: "0", count: max(0, 4 - String(index).count)) + String(index) + ".pam"
        try PNMWriter.write(PNMWriter.encode(compositor.frame(at: index), format: .pam), to: outputDirectory + "/" + name)
        print("\(name) \(info.displayMs(at: index)) ms")
    }
    for (index, problem) in compositor.problems.sorted(by: { $0.key < $1.key }) {
        print("warning: frame \(index): \(problem)")
    }
} catch {
    fail("\(input): \(error)")
}
