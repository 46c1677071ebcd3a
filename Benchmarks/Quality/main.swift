import AnimatedCore
import AnimatedTerminal
#if canImport(Glibc)
import Glibc
#endif

// quality-bench SOURCE-IMAGE CAPTURE [COLUMNS ROWS]
//   Reads what a program wrote to a terminal (CAPTURE, raw bytes as ptyrun.py --save keeps
//   them), finds the cells it drew, rasterises them by glyph coverage and prints one JSON line:
//   the cell size, SSIM and PSNR against SOURCE area-averaged to the same raster, and how many
//   characters were not block glyphs.
// quality-bench --encode SOURCE-IMAGE COLUMNS ROWS
//   Prints, for every symbol set and colour space, the same measures of animplay's own cells
//   for a COLUMNS × ROWS cell area (no terminal involved).
// quality-bench --scale SOURCE WIDTH HEIGHT [FRAMES [REPEAT [DUMP]]]
//   Times AreaAverageScaler (what --fill does to every frame) on the first FRAMES composited
//   frames (default 30) scaled to WIDTH × HEIGHT, REPEAT times (default 3); prints one JSON
//   line: CPU ms a frame, the median and best of the repeats. DUMP: the scaled frames (RGBA,
//   packed) written to that file, to compare two builds byte for byte (e.g. with numpy).
// quality-bench --first-sixel SOURCE WIDTH HEIGHT [REPEAT]
//   Times a new SixelEncoder's first frame (first palette, table, bands) on frame 0 of SOURCE
//   scaled to WIDTH × HEIGHT; prints CPU ms and a hash of the sixel (identical across builds?).
// quality-bench --sixel-frames SOURCE WIDTH HEIGHT [FRAMES [REPEAT]]
//   Times one SixelEncoder over the first FRAMES frames of SOURCE (default 60) scaled to WIDTH ×
//   HEIGHT and flattened beforehand, as the sixel output encodes a video's frames; prints CPU
//   ms a frame (median and best of REPEAT, default 3), a hash of all the sixels' bytes, the
//   encoder's PSNR of frame 0, the mean and least over the frames (capped at 99 dB), and the
//   palettes built: to weigh a change to the palettes.
// quality-bench --compress SOURCE [REPEAT]
//   Frame 0 of SOURCE as RGB deflated by Zlib.compress and by Zlib.compressInHalves: wall and
//   CPU ms, sizes.

func fail(_ message: String) -> Never {
    let line = Array("quality-bench: \(message)\n".utf8)
    _ = line.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

func load(_ path: String) -> Canvas {
    do {
        let decoder = try AnimationLoader.open(path: path, options: DecodeOptions())
        return try Compositor(decoder: decoder).frame(at: 0)
    } catch {
        fail("\(path): \(error)")
    }
}

func readAll(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { fail("\(path): cannot open") }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        out += buf[0..<n]
    }
    return out
}

func fixed(_ v: Double) -> String {
    v.isFinite ? String(Double(Int((v * 10000).rounded())) / 10000) : "null"
}

let args = Array(CommandLine.arguments.dropFirst())
if args.first == "--enlarge" {
    // --enlarge SOURCE WIDTH HEIGHT DIR: the first frame enlarged by every filter (and the
    // area average, a sharp box filter) as DIR/FILTER.ppm (over black), for ../fill-quality.py.
    guard args.count == 5, let w = Int(args[2]), let h = Int(args[3]) else { fail("usage: --enlarge SOURCE WIDTH HEIGHT DIR") }
    let canvas = load(args[1])
    var outputs: [(String, [UInt8])] = Enlarger.Filter.allCases.map { ($0.rawValue, Enlarger(filter: $0).enlarge(canvas, width: w, height: h)) }
    outputs.append(("box", AreaAverageScaler(enlarger: nil).scale(canvas, index: 0, to: RenderSize(width: w, height: h)).pixels))
    for (name, rgba) in outputs {
        var ppm = Array("P6\n\(w) \(h)\n255\n".utf8)
        for i in 0..<(w * h) {
            let a = Int(rgba[i * 4 + 3])
            for c in 0..<3 { ppm.append(UInt8((Int(rgba[i * 4 + c]) * a + 127) / 255)) }
        }
        guard let f = fopen("\(args[4])/\(name).ppm", "wb") else { fail("cannot write \(args[4])") }
        _ = ppm.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
    }
    exit(0)
}
if args.first == "--scale" {
    guard (4...7).contains(args.count), let w = Int(args[2]), let h = Int(args[3]) else {
        fail("usage: --scale SOURCE WIDTH HEIGHT [FRAMES [REPEAT [DUMP]]]")
    }
    let want = args.count > 4 ? Int(args[4]) ?? 30 : 30, repeats = args.count > 5 ? max(1, Int(args[5]) ?? 3) : 3
    let compositor: Compositor
    do { compositor = try Compositor(decoder: AnimationLoader.open(path: args[1], options: DecodeOptions())) } catch { fail("\(args[1]): \(error)") }
    var frames: [Canvas] = []
    for (_, canvas) in compositor.frames().prefix(want) {
        let copy = Canvas(width: canvas.width, height: canvas.height)
        _ = copy.pixels.update(fromContentsOf: canvas.pixels)
        frames.append(copy)
    }
    let scaler = AreaAverageScaler()
    let out = UnsafeMutablePointer<UInt8>.allocate(capacity: w * h * 4)
    func cpu() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    scaler.scale(frames[0], width: w, height: h, into: out)   // warm the tables and caches
    var times: [Double] = []
    for _ in 0..<repeats {
        let t0 = cpu()
        for f in frames { scaler.scale(f, width: w, height: h, into: out) }
        times.append((cpu() - t0) / Double(frames.count))
    }
    if args.count > 6 {
        guard let f = fopen(args[6], "wb") else { fail("cannot write \(args[6])") }
        for frame in frames {
            scaler.scale(frame, width: w, height: h, into: out)
            fwrite(out, 1, w * h * 4, f)
        }
        fclose(f)
    }
    times.sort()
    print("{\"source\": \"\(frames[0].width)x\(frames[0].height)\", \"target\": \"\(w)x\(h)\", \"frames\": \(frames.count), \"ms_per_frame\": \(fixed(times[times.count / 2])), \"best\": \(fixed(times[0]))}")
    exit(0)
}
if args.first == "--first-sixel" {
    // --first-sixel SOURCE WIDTH HEIGHT [REPEAT]: a new SixelEncoder's first frame (the palette
    // built, the table filled, the bands written) for frame 0 of SOURCE scaled to WIDTH × HEIGHT,
    // REPEAT times (default 5), each with a new encoder; prints wall and CPU ms (medians; best
    // CPU) and a hash
    // of the sixel's bytes (to compare two builds).
    guard (4...5).contains(args.count), let w = Int(args[2]), let h = Int(args[3]) else {
        fail("usage: --first-sixel SOURCE WIDTH HEIGHT [REPEAT]")
    }
    let repeats = args.count > 4 ? max(1, Int(args[4]) ?? 5) : 5
    let frame = OpaqueFrame(AreaAverageScaler().scale(load(args[1]), index: 0, to: RenderSize(width: w, height: h)),
                            background: .terminal)
    func cpu() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    func wallClock() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    var times: [Double] = [], walls: [Double] = [], hash: UInt64 = 0, bytes = 0, psnr = 0.0
    for _ in 0..<repeats {
        let encoder = SixelEncoder(background: .terminal)
        let t0 = cpu(), w0 = wallClock()
        let sixel = encoder.encode(frame)
        times.append(cpu() - t0)
        walls.append(wallClock() - w0)
        hash = sixel.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        bytes = sixel.count
        psnr = encoder.lastPSNR
    }
    times.sort()
    walls.sort()
    print("{\"target\": \"\(w)x\(h)\", \"wall\": \(fixed(walls[walls.count / 2])), \"ms\": \(fixed(times[times.count / 2])), \"best\": \(fixed(times[0])), \"bytes\": \(bytes), \"psnr\": \(fixed(psnr)), \"hash\": \"\(String(hash, radix: 16))\"}")
    exit(0)
}
if args.first == "--sixel-frames" {
    guard (4...6).contains(args.count), let w = Int(args[2]), let h = Int(args[3]) else {
        fail("usage: --sixel-frames SOURCE WIDTH HEIGHT [FRAMES [REPEAT]]")
    }
    let count = args.count > 4 ? max(1, Int(args[4]) ?? 60) : 60
    let repeats = args.count > 5 ? max(1, Int(args[5]) ?? 3) : 3
    let compositor: Compositor
    do { compositor = try Compositor(decoder: AnimationLoader.open(path: args[1], options: DecodeOptions())) }
    catch { fail("\(args[1]): \(error)") }
    var frames: [OpaqueFrame] = []
    for (index, canvas) in compositor.frames() {
        guard index < count else { break }
        frames.append(OpaqueFrame(AreaAverageScaler().scale(canvas, index: index, to: RenderSize(width: w, height: h)),
                                  background: .terminal))
    }
    func cpu() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    var times: [Double] = [], hash: UInt64 = 14_695_981_039_346_656_037, bytes = 0
    var psnrs: [Double] = [], built = 0
    for r in 0..<repeats {
        let encoder = SixelEncoder(background: .terminal)
        var spent = 0.0
        for frame in frames {
            let t0 = cpu()
            let sixel = frame.rgb.withUnsafeBufferPointer {
                encoder.encodeInPlace(rgb: $0.baseAddress!, width: frame.size.width, height: frame.size.height)
            }
            spent += cpu() - t0
            if r == 0 {
                for b in sixel { hash = (hash ^ UInt64(b)) &* 1_099_511_628_211 }
                bytes += sixel.count
                psnrs.append(min(99, encoder.lastPSNR))
            }
        }
        if r == 0 { built = encoder.palettesBuilt }
        times.append(spent / Double(frames.count))
    }
    times.sort()
    print("{\"target\": \"\(w)x\(h)\", \"frames\": \(frames.count), \"ms\": \(fixed(times[times.count / 2])), \"best\": \(fixed(times[0])), \"bytes\": \(bytes), \"hash\": \"\(String(hash, radix: 16))\", \"psnr_mean\": \(fixed(psnrs.reduce(0, +) / Double(max(1, psnrs.count)))), \"psnr_min\": \(fixed(psnrs.min() ?? 0)), \"psnr0\": \(fixed(psnrs.first ?? 0)), \"palettes\": \(built)}")
    exit(0)
}
if args.first == "--compress" {
    // --compress SOURCE [REPEAT]: frame 0 of SOURCE as RGB (what kitty gets of an opaque frame at
    // its own size) deflated at level 1 by Zlib.compress and by Zlib.compressInHalves, REPEAT
    // times each (default 9), interleaved; prints wall and CPU ms (medians) and the sizes.
    guard (2...3).contains(args.count) else { fail("usage: --compress SOURCE [REPEAT]") }
    let repeats = args.count > 2 ? max(1, Int(args[2]) ?? 9) : 9
    let canvas = load(args[1])
    let rgb = canvas.withUnsafeBytes { KittyFramePreparer.opaqueRGB($0) } ?? []
    func clock(_ id: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(id, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    var wall: [[Double]] = [[], []], cpu: [[Double]] = [[], []], sizes = [0, 0]
    for _ in 0..<repeats {
        for k in 0..<2 {
            let w0 = clock(CLOCK_MONOTONIC), c0 = clock(CLOCK_PROCESS_CPUTIME_ID)
            let packed = rgb.withUnsafeBytes { k == 0 ? Zlib.compress($0, level: 1) : Zlib.compressInHalves($0, level: 1) }
            wall[k].append(clock(CLOCK_MONOTONIC) - w0); cpu[k].append(clock(CLOCK_PROCESS_CPUTIME_ID) - c0)
            sizes[k] = packed.count
        }
    }
    func median(_ v: [Double]) -> String { fixed(v.sorted()[v.count / 2]) }
    print("{\"bytes\": \(rgb.count), \"whole\": {\"wall\": \(median(wall[0])), \"cpu\": \(median(cpu[0])), \"size\": \(sizes[0])}, \"halves\": {\"wall\": \(median(wall[1])), \"cpu\": \(median(cpu[1])), \"size\": \(sizes[1])}}")
    exit(0)
}
if args.first == "--encode" {
    guard args.count == 4, let cols = Int(args[2]), let rows = Int(args[3]) else { fail("usage: --encode SOURCE COLUMNS ROWS") }
    let canvas = load(args[1])
    let reference = PictureQuality.reference(canvas, columns: cols, rows: rows)
    let size = RenderSize(width: cols, height: rows * 2)
    for symbols in SymbolSet.allCases {
        for space in SymbolColorSpace.allCases {
            if symbols == .half && space != .linear && space != .srgb { continue }   // half: no encoder
            let scaler: any FrameScaler = symbols == .half ? AreaAverageScaler()
                : SymbolScaler(symbols: symbols, background: .terminal, colorSpace: space)
            let grid = CellGrid()
            CellRenderer(mode: .truecolor, background: .terminal).render(scaler.scale(canvas, index: 0, to: size), into: grid)
            let shown = PictureQuality.rasterize(grid, mode: .truecolor)
            print("{\"symbols\": \"\(symbols)\", \"space\": \"\(space)\", \"ssim\": \(fixed(PictureQuality.ssim(shown, reference))), \"psnr\": \(fixed(PictureQuality.psnr(shown, reference)))}")
        }
    }
    exit(0)
}
guard args.count == 2 || args.count == 4 else { fail("usage: SOURCE CAPTURE [COLUMNS ROWS]") }
let canvas = load(args[0])
let cols = args.count == 4 ? Int(args[2]) ?? 200 : 200, rows = args.count == 4 ? Int(args[3]) ?? 100 : 100
var screen = TerminalScreen(columns: cols, rows: rows)
screen.feed(readAll(args[1]))
guard let area = screen.written else { fail("\(args[1]): nothing drawn") }
let cells = screen.cropped(rows: area.rows, columns: area.columns)
let (shown, unknown) = PictureQuality.rasterize(cells)
let reference = PictureQuality.reference(canvas, columns: cells.columns, rows: cells.rows)
print("{\"columns\": \(cells.columns), \"rows\": \(cells.rows), \"ssim\": \(fixed(PictureQuality.ssim(shown, reference))), \"psnr\": \(fixed(PictureQuality.psnr(shown, reference))), \"unknown\": \(unknown), \"skipped\": \(screen.skippedSequences)}")
