import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Builds PNG/APNG files chunk by chunk (zlib data as stored deflate blocks), so that each test
/// says exactly which bytes it feeds the decoder.
private enum PNGBytes {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let td = Array(type.utf8) + data
        return be32(UInt32(data.count)) + td + be32(crc32(td))
    }

    static func ihdr(_ w: Int, _ h: Int, depth: UInt8 = 8, color: UInt8 = 6, interlace: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", be32(UInt32(w)) + be32(UInt32(h)) + [depth, color, 0, 0, interlace])
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlib(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, raw.count - i)
            let final: UInt8 = i + n == raw.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += raw[i..<(i + n)]
            i += n
        } while i < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for x in raw { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        return out + be32(b << 16 | a)
    }

    /// Scanlines with filter type 0, rows given as raw bytes.
    static func scanlines(_ rows: [[UInt8]]) -> [UInt8] { rows.flatMap { [0] + $0 } }

    /// Rows of 8-bit RGBA pixels to scanline bytes.
    static func rgbaRows(_ px: [[UInt8]], width: Int) -> [[UInt8]] {
        stride(from: 0, to: px.count, by: width).map { Array(px[$0..<($0 + width)].joined()) }
    }

    static func acTL(frames: UInt32, plays: UInt32 = 0) -> [UInt8] { chunk("acTL", be32(frames) + be32(plays)) }

    static func fcTL(_ seq: UInt32, _ w: Int, _ h: Int, x: Int = 0, y: Int = 0, delay: (UInt16, UInt16) = (1, 10),
                     dispose: UInt8 = 0, blend: UInt8 = 0) -> [UInt8] {
        chunk("fcTL", be32(seq) + be32(UInt32(w)) + be32(UInt32(h)) + be32(UInt32(x)) + be32(UInt32(y))
              + be16(delay.0) + be16(delay.1) + [dispose, blend])
    }

    static func fdAT(_ seq: UInt32, _ data: [UInt8]) -> [UInt8] { chunk("fdAT", be32(seq) + data) }
    static func idat(_ data: [UInt8]) -> [UInt8] { chunk("IDAT", data) }
    static let iend = chunk("IEND", [])

    /// One 8-bit RGBA image of a single colour, as zlib data.
    static func solid(_ w: Int, _ h: Int, _ rgba: [UInt8]) -> [UInt8] {
        zlib(scanlines(Array(repeating: Array([[UInt8]](repeating: rgba, count: w).joined()), count: h)))
    }
}

private let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255], blue: [UInt8] = [0, 0, 255, 255]

private func open(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> APNGDecoder {
    try APNGDecoder(source: ByteSource(bytes: bytes), options: options)
}

/// The composited frames, each as RGBA bytes.
private func frames(_ d: APNGDecoder) throws -> [[UInt8]] {
    let c = try Compositor(decoder: d)
    return (0..<d.info.frameCount).map { c.frame(at: $0).snapshot() }
}

private func pixel(_ frame: [UInt8], _ x: Int, _ y: Int, width: Int) -> [UInt8] {
    Array(frame[(y * width + x) * 4..<(y * width + x) * 4 + 4])
}

private func expectError(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions(),
                         _ match: (AnimatedError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let d = try open(bytes, options: options)
        Issue.record("expected an error, got \(d.info.frameCount) frames", sourceLocation: sourceLocation)
    } catch let e as AnimatedError {
        #expect(match(e), "\(e)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
}

/// A 2-frame APNG on a 4x4 canvas: the default image (green) is frame 0, then a red 2x2 frame
/// at (1,1). `chunks` can be replaced to make it invalid.
private func twoFrameAPNG(_ mutate: (inout [[UInt8]]) -> Void = { _ in }) -> [UInt8] {
    var chunks: [[UInt8]] = [
        PNGBytes.ihdr(4, 4),
        PNGBytes.acTL(frames: 2, plays: 3),
        PNGBytes.fcTL(0, 4, 4, delay: (1, 10)),
        PNGBytes.idat(PNGBytes.solid(4, 4, green)),
        PNGBytes.fcTL(1, 2, 2, x: 1, y: 1, delay: (50, 0), blend: 1),
        PNGBytes.fdAT(2, PNGBytes.solid(2, 2, red)),
        PNGBytes.iend,
    ]
    mutate(&chunks)
    return PNGBytes.signature + chunks.joined()
}

@Suite struct APNGDecoderTests {
    // MARK: still PNG

    @Test func stillPNGIsOneFrame() throws {
        let px: [[UInt8]] = [red, green, blue, [10, 20, 30, 40]]
        let file = PNGBytes.signature + PNGBytes.ihdr(2, 2)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines(PNGBytes.rgbaRows(px, width: 2)))) + PNGBytes.iend
        let d = try open(file)
        #expect(d.info.format == .png)
        #expect(d.info.frameCount == 1)
        #expect(d.info.plays == 1)
        #expect(d.info.frames[0].delayMs == 0)
        #expect(d.info.warnings.isEmpty)
        #expect(try frames(d)[0] == Array(px.joined()))
    }

    @Test func splitAndEmptyIDATChunks() throws {
        let z = PNGBytes.solid(3, 2, blue)
        let file = PNGBytes.signature + PNGBytes.ihdr(3, 2) + PNGBytes.idat(Array(z[0..<5]))
            + PNGBytes.idat([]) + PNGBytes.idat(Array(z[5...])) + PNGBytes.iend
        #expect(try frames(open(file))[0] == Array(repeating: blue, count: 6).joined().map { $0 })
    }

    // MARK: colour types and bit depths

    /// Greyscale at 1, 2, 4, 8 and 16 bits: sample values are scaled to 0...255.
    @Test(arguments: [1, 2, 4, 8, 16] as [UInt8])
    func greyscaleDepths(depth: UInt8) throws {
        let maxv = (1 << Int(depth)) - 1
        let samples = [0, maxv, maxv / 2, 1]            // one row of 4 pixels
        var bits: [Int] = []
        for s in samples { for b in stride(from: Int(depth) - 1, through: 0, by: -1) { bits.append((s >> b) & 1) } }
        var row: [UInt8] = []
        for i in stride(from: 0, to: bits.count, by: 8) {
            var byte = 0
            for k in 0..<8 { byte = byte << 1 | (i + k < bits.count ? bits[i + k] : 0) }
            row.append(UInt8(byte))
        }
        let file = PNGBytes.signature + PNGBytes.ihdr(4, 1, depth: depth, color: 0)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([row]))) + PNGBytes.iend
        let got = try frames(open(file))[0]
        for (i, s) in samples.enumerated() {
            let v = UInt8((s * 255 * 2 + maxv) / (2 * maxv))    // round(s * 255 / maxv)
            #expect(pixel(got, i, 0, width: 4) == [v, v, v, 255], "depth \(depth) sample \(s)")
        }
    }

    /// 16-bit samples keep their high byte, as Chromium shows them (its frames of random 16-bit
    /// samples: `BrowserReferenceTests`), not v * 255 / 65535 rounded: 0x00FF -> 0 and 0xFF00
    /// -> 255 (rounding would give 1 and 254).
    @Test func sixteenBitSamplesKeepTheirHighByte() throws {
        let samples: [UInt16] = [0x00FF, 0xFF00, 0x7FFF, 0x8000, 0xFFFF, 0x0080]
        let want: [UInt8] = [0, 255, 127, 128, 255, 0]
        // RGBA16: R = sample, G = 0, B = 0xFFFF, A = sample.
        let row: [UInt8] = samples.flatMap { (s: UInt16) -> [UInt8] in
            let rg: [UInt8] = PNGBytes.be16(s) + [0, 0]
            return rg + [0xFF, 0xFF] + PNGBytes.be16(s)
        }
        let file = PNGBytes.signature + PNGBytes.ihdr(samples.count, 1, depth: 16, color: 6)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([row]))) + PNGBytes.iend
        let d = try open(file)
        // Blend SOURCE of a still: the canvas holds the decoded pixels unchanged.
        let got = try frames(d)[0]
        for i in samples.indices {
            #expect(pixel(got, i, 0, width: samples.count) == [want[i], 0, 255, want[i]], "sample \(samples[i])")
        }
    }

    @Test func rgbAndGreyAlpha8And16() throws {
        // RGB 8: opaque.
        var file = PNGBytes.signature + PNGBytes.ihdr(2, 1, depth: 8, color: 2)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([[1, 2, 3, 250, 251, 252]]))) + PNGBytes.iend
        var d = try open(file)
        #expect(d.info.frames[0].hasAlpha == false)
        #expect(try frames(d)[0] == [1, 2, 3, 255, 250, 251, 252, 255])
        // RGB 8, 13 pixels: rows are widened 4 pixels at a time plus a remainder.
        let rgb: [UInt8] = (0..<39).map { UInt8($0 * 5) }
        file = PNGBytes.signature + PNGBytes.ihdr(13, 2, depth: 8, color: 2)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([rgb, rgb.reversed()]))) + PNGBytes.iend
        let wide = try frames(open(file))[0]
        for (y, row) in [rgb, rgb.reversed()].enumerated() {
            for x in 0..<13 { #expect(pixel(wide, x, y, width: 13) == Array(row[(x * 3)..<(x * 3 + 3)]) + [255]) }
        }
        // RGB 16.
        file = PNGBytes.signature + PNGBytes.ihdr(1, 1, depth: 16, color: 2)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([[0xFF, 0x00, 0x00, 0xFF, 0x12, 0x34]]))) + PNGBytes.iend
        #expect(try frames(open(file))[0] == [255, 0, 18, 255])
        // Grey + alpha 8.
        file = PNGBytes.signature + PNGBytes.ihdr(2, 1, depth: 8, color: 4)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([[7, 128, 200, 255]]))) + PNGBytes.iend
        d = try open(file)
        #expect(d.info.frames[0].hasAlpha)
        #expect(try frames(d)[0] == [7, 7, 7, 128, 200, 200, 200, 255])
        // Grey + alpha 16.
        file = PNGBytes.signature + PNGBytes.ihdr(1, 1, depth: 16, color: 4)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([[0x00, 0xFF, 0xFF, 0x00]]))) + PNGBytes.iend
        #expect(try frames(open(file))[0] == [0, 0, 0, 255])
    }

    @Test func paletteWithTransparency() throws {
        // 2-bit palette, 4 entries, tRNS for the first two only.
        let plte: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]
        let file = PNGBytes.signature + PNGBytes.ihdr(4, 1, depth: 2, color: 3)
            + PNGBytes.chunk("PLTE", plte) + PNGBytes.chunk("tRNS", [0, 128])
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([[0b00_01_10_11]]))) + PNGBytes.iend
        let d = try open(file)
        #expect(d.info.frames[0].hasAlpha)
        #expect(try frames(d)[0] == [255, 0, 0, 0, 0, 255, 0, 128, 0, 0, 255, 255, 9, 9, 9, 255])
    }

    @Test func greyAndRGBTransparentColour() throws {
        // Grey 8 with tRNS grey 5; RGB 16 with tRNS (1, 2, 3) compared at 16 bits.
        var file = PNGBytes.signature + PNGBytes.ihdr(2, 1, depth: 8, color: 0) + PNGBytes.chunk("tRNS", [0, 5])
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([[5, 6]]))) + PNGBytes.iend
        var d = try open(file)
        #expect(d.info.frames[0].hasAlpha)
        #expect(try frames(d)[0] == [5, 5, 5, 0, 6, 6, 6, 255])
        file = PNGBytes.signature + PNGBytes.ihdr(2, 1, depth: 16, color: 2) + PNGBytes.chunk("tRNS", [0, 1, 0, 2, 0, 3])
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([[0, 1, 0, 2, 0, 3, 1, 1, 0, 2, 0, 3]]))) + PNGBytes.iend
        d = try open(file)
        let got = try frames(d)[0]
        #expect(got[3] == 0)                               // exact 16-bit match: transparent
        #expect(Array(got[4..<8]) == [1, 0, 0, 255])       // 0x0101 differs: opaque
    }

    @Test func invalidTRNSIsIgnoredWithWarning() throws {
        let file = PNGBytes.signature + PNGBytes.ihdr(1, 1, depth: 8, color: 2) + PNGBytes.chunk("tRNS", [0, 5])
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines([[5, 5, 5]]))) + PNGBytes.iend
        let d = try open(file)
        #expect(d.info.warnings.contains { $0.contains("tRNS") })
        #expect(d.info.frames[0].hasAlpha == false)
        #expect(try frames(d)[0] == [5, 5, 5, 255])
    }

    /// Adam7: the same pixels interlaced and not interlaced decode alike.
    @Test func adam7EqualsProgressive() throws {
        let w = 11, h = 9
        let px: [[UInt8]] = (0..<(w * h)).map { (i: Int) -> [UInt8] in
            [UInt8(i), UInt8(255 - i), UInt8(i * 7 & 0xFF), UInt8(100 + i)]
        }
        let plain = PNGBytes.signature + PNGBytes.ihdr(w, h)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines(PNGBytes.rgbaRows(px, width: w)))) + PNGBytes.iend
        var rows: [[UInt8]] = []
        for (x0, y0, dx, dy) in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)] {
            for y in stride(from: y0, to: h, by: dy) {
                let row = stride(from: x0, to: w, by: dx).flatMap { px[y * w + $0] }
                if !row.isEmpty { rows.append(row) }
            }
        }
        let interlaced = PNGBytes.signature + PNGBytes.ihdr(w, h, interlace: 1)
            + PNGBytes.idat(PNGBytes.zlib(PNGBytes.scanlines(rows))) + PNGBytes.iend
        let want = Array(px.joined())
        #expect(try frames(open(plain))[0] == want)
        #expect(try frames(open(interlaced))[0] == want)
    }

    // MARK: animation

    @Test func validAnimation() throws {
        let d = try open(twoFrameAPNG())
        #expect(d.info.format == .apng)
        #expect(d.info.frameCount == 2)
        #expect(d.info.plays == 3)
        #expect(d.info.frames[0].delayMs == 100)
        #expect(d.info.frames[1].delayMs == 500)       // 50/0 -> 50/100 s
        #expect(d.info.frames[1].blend == .over)
        #expect(d.info.frames[1].rect == FrameRect(x: 1, y: 1, width: 2, height: 2))
        #expect(d.info.warnings.isEmpty)
        let f = try frames(d)
        #expect(pixel(f[0], 1, 1, width: 4) == green)
        #expect(pixel(f[1], 1, 1, width: 4) == red)
        #expect(pixel(f[1], 2, 2, width: 4) == red)
        #expect(pixel(f[1], 0, 0, width: 4) == green)
        #expect(pixel(f[1], 3, 3, width: 4) == green)
    }

    @Test func hiddenDefaultImageIsNotAFrame() throws {
        let file = PNGBytes.signature + PNGBytes.ihdr(2, 2) + PNGBytes.acTL(frames: 1)
            + PNGBytes.idat(PNGBytes.solid(2, 2, red))
            + PNGBytes.fcTL(0, 2, 2) + PNGBytes.fdAT(1, PNGBytes.solid(2, 2, blue)) + PNGBytes.iend
        let d = try open(file)
        #expect(d.info.format == .apng)
        #expect(d.info.frameCount == 1)
        #expect(try frames(d)[0] == Array(Array(repeating: blue, count: 4).joined()))
    }

    /// Each broken animation shows the default image (green) as a still, with a warning saying why.
    @Test(arguments: [
        ("sequence gap", "sequence number"),
        ("duplicate acTL", "more than one acTL"),
        ("fcTL outside canvas", "outside"),
        ("num_frames too high", "num_frames 3"),
        ("acTL after IDAT", "acTL after IDAT"),
        ("missing fdAT", "no image data"),
        ("empty frame", "empty"),
        ("bad dispose op", "dispose_op"),
        ("fcTL not matching IHDR", "not the IHDR"),
        ("fdAT before fcTL", "fdAT before the first fcTL"),
        ("no acTL", "without acTL"),
        ("broken frame 0 data", "frame 0"),
    ])
    func invalidAnimationShowsDefaultImage(_ c: (String, String)) throws {
        let (name, warning) = c
        var file: [UInt8]
        // A hidden default image (green), then frames, so that every breakage can fall back.
        func hidden(_ frameChunks: [[UInt8]], acTL: [UInt8]? = PNGBytes.acTL(frames: 2)) -> [UInt8] {
            PNGBytes.signature + PNGBytes.ihdr(4, 4) + (acTL ?? []) + PNGBytes.idat(PNGBytes.solid(4, 4, green))
                + frameChunks.joined() + PNGBytes.iend
        }
        let f0 = [PNGBytes.fcTL(0, 4, 4), PNGBytes.fdAT(1, PNGBytes.solid(4, 4, red))]
        switch name {
        case "sequence gap":
            file = hidden(f0 + [PNGBytes.fcTL(2, 2, 2), PNGBytes.fdAT(4, PNGBytes.solid(2, 2, blue))])
        case "duplicate acTL":
            file = hidden(f0 + [PNGBytes.fcTL(2, 2, 2), PNGBytes.fdAT(3, PNGBytes.solid(2, 2, blue))])
            file.insert(contentsOf: PNGBytes.acTL(frames: 2), at: 8 + 25)
        case "fcTL outside canvas":
            file = hidden(f0 + [PNGBytes.fcTL(2, 2, 2, x: 3, y: 0), PNGBytes.fdAT(3, PNGBytes.solid(2, 2, blue))])
        case "num_frames too high":
            file = hidden(f0 + [PNGBytes.fcTL(2, 2, 2), PNGBytes.fdAT(3, PNGBytes.solid(2, 2, blue))],
                          acTL: PNGBytes.acTL(frames: 3))
        case "acTL after IDAT":
            file = hidden([PNGBytes.acTL(frames: 1)] + f0, acTL: nil)
        case "missing fdAT":
            file = hidden([PNGBytes.fcTL(0, 4, 4), PNGBytes.fcTL(1, 2, 2), PNGBytes.fdAT(2, PNGBytes.solid(2, 2, blue))])
        case "empty frame":
            file = hidden(f0 + [PNGBytes.fcTL(2, 0, 2), PNGBytes.fdAT(3, PNGBytes.solid(2, 2, blue))])
        case "bad dispose op":
            file = hidden(f0 + [PNGBytes.fcTL(2, 2, 2, dispose: 3), PNGBytes.fdAT(3, PNGBytes.solid(2, 2, blue))])
        case "fcTL not matching IHDR":
            // The default image is frame 0 but its fcTL says 4x2: 4x4 green IDAT data is still
            // a valid default image.
            file = PNGBytes.signature + PNGBytes.ihdr(4, 4) + PNGBytes.acTL(frames: 1) + PNGBytes.fcTL(0, 4, 2)
                + PNGBytes.idat(PNGBytes.solid(4, 4, green)) + PNGBytes.iend
        case "fdAT before fcTL":
            file = hidden([PNGBytes.fdAT(0, PNGBytes.solid(4, 4, red))], acTL: PNGBytes.acTL(frames: 1))
        case "no acTL":
            file = hidden(f0, acTL: nil)
        case "broken frame 0 data":
            // Frame 0 holds only half its rows: it cannot be decoded, so the default image shows.
            file = hidden([PNGBytes.fcTL(0, 4, 4), PNGBytes.fdAT(1, PNGBytes.solid(4, 2, red))],
                          acTL: PNGBytes.acTL(frames: 1))
        default:
            Issue.record("unknown case"); return
        }
        let d = try open(file)
        #expect(d.info.format == .png, "\(name)")
        #expect(d.info.frameCount == 1, "\(name)")
        #expect(d.info.plays == 1, "\(name)")
        #expect(d.info.warnings.contains { $0.contains(warning) }, "\(name): \(d.info.warnings)")
        #expect(try frames(d)[0] == Array(Array(repeating: green, count: 16).joined()), "\(name)")
    }

    @Test func missingOrBrokenDefaultImageThrows() {
        // No IDAT at all.
        expectError(PNGBytes.signature + PNGBytes.ihdr(4, 4) + PNGBytes.acTL(frames: 0) + PNGBytes.iend) {
            $0.kind == .invalid && $0.message.contains("IDAT")
        }
        // Frame 0 is the default image and its data is short (like Philip Taylor 058).
        expectError(twoFrameAPNG { $0[3] = PNGBytes.idat(PNGBytes.solid(4, 2, green)) }) {
            $0.kind == .invalid
        }
        // IHDR not first.
        expectError(PNGBytes.signature + PNGBytes.acTL(frames: 1) + PNGBytes.ihdr(4, 4) + PNGBytes.iend) {
            $0 == .invalid("IHDR is not the first chunk")
        }
        // IHDR with a bad CRC.
        var bad = PNGBytes.signature + PNGBytes.ihdr(4, 4) + PNGBytes.idat(PNGBytes.solid(4, 4, green)) + PNGBytes.iend
        bad[8 + 21] ^= 1
        expectError(bad) { $0 == .invalid("IHDR CRC mismatch") }
    }

    @Test func idatCRCMismatchIsAnError() {
        var file = PNGBytes.signature + PNGBytes.ihdr(2, 2) + PNGBytes.idat(PNGBytes.solid(2, 2, green)) + PNGBytes.iend
        file[file.count - 12 - 1] ^= 0x40        // last byte of the IDAT CRC
        expectError(file) { $0.kind == .invalid && $0.message.contains("CRC") }
    }

    /// A later frame with corrupt data: the animation opens; that frame's blend throws, naming it,
    /// and the compositor records the problem and keeps going.
    @Test func corruptLaterFrameIsReportedByBlend() throws {
        var file = twoFrameAPNG { $0[5] = PNGBytes.fdAT(2, [0x78, 0x01, 0xFF, 0xFF, 0xFF, 0xFF]) }
        var d = try open(file)
        #expect(d.info.frameCount == 2)
        var c = try Compositor(decoder: d)
        c.frame(at: 1)
        #expect(c.problems[1]?.contains("frame 1") == true)
        #expect(c.problems[0] == nil)
        #expect(throws: AnimatedError.self) { try d.blend(frame: 1, onto: Canvas(width: 4, height: 4)) }

        // The same with a good zlib stream but a bad fdAT CRC.
        file = twoFrameAPNG()
        let fdATEnd = file.count - 12                 // before IEND
        file[fdATEnd - 1] ^= 1
        d = try open(file)
        c = try Compositor(decoder: d)
        c.frame(at: 1)
        #expect(c.problems[1]?.contains("CRC") == true)
    }

    // MARK: limits and truncation

    @Test func limitsAreCheckedOnIHDR() {
        // 2^31 - 1 wide: refused from the header, before any allocation.
        expectError(PNGBytes.signature + PNGBytes.ihdr(0x7FFF_FFFF, 1) + PNGBytes.iend) {
            $0.kind == .limitExceeded
        }
        expectError(PNGBytes.signature + PNGBytes.ihdr(0, 4) + PNGBytes.iend) {
            $0.kind == .invalid
        }
        var options = DecodeOptions()
        options.limits.maxDimension = 3
        expectError(twoFrameAPNG(), options: options) {
            $0.kind == .limitExceeded
        }
        options = DecodeOptions()
        options.limits.maxFrames = 1
        expectError(twoFrameAPNG(), options: options) {
            $0.kind == .limitExceeded && $0.message.contains("frames")
        }
    }

    @Test func timingPolicyIsApplied() throws {
        let d = try open(twoFrameAPNG(), options: DecodeOptions(timing: TimingPolicy(browserMinimumDelay: false)))
        #expect(d.info.timing.browserMinimumDelay == false)
        #expect(d.info.displayMs(at: 0) == 100)
        let fast = twoFrameAPNG { $0[2] = PNGBytes.fcTL(0, 4, 4, delay: (1, 100)) }     // 10 ms
        #expect(try open(fast).info.displayMs(at: 0) == 100)
        #expect(try open(fast, options: DecodeOptions(timing: TimingPolicy(browserMinimumDelay: false))).info.displayMs(at: 0) == 10)
    }

    @Test func truncatedFiles() throws {
        let full = twoFrameAPNG()
        // Cut inside the IDAT: no default image, an error.
        let idatStart = 8 + 25 + 20 + 38
        expectError(Array(full[0..<(idatStart + 20)])) {
            $0.kind == .invalid
        }
        // Cut inside the second frame's fdAT: that frame shows the rows that arrived (as in
        // Chromium: Tests/Fixtures/browser/apng-cut-*), over what was under it (it blends OVER).
        let d = try open(Array(full[0..<(full.count - 12 - 10)]))
        #expect(d.info.format == .apng)
        #expect(d.info.frameCount == 2)
        #expect(d.info.warnings.contains { $0.contains("truncated") && $0.contains("rows that arrived") })
        let shown = try frames(d)
        #expect(shown[0] == Array(Array(repeating: green, count: 16).joined()))
        var arrived = true
        for y in 0..<4 {
            for x in 0..<4 where !(1...2).contains(x) || !(1...2).contains(y) {
                #expect(pixel(shown[1], x, y, width: 4) == green)
            }
            guard (1...2).contains(y) else { continue }
            let row = [pixel(shown[1], 1, y, width: 4), pixel(shown[1], 2, y, width: 4)]
            #expect(row == [red, red] && arrived || row == [green, green], "row \(y): \(row)")
            arrived = row == [red, red]
        }
        // Cut inside the second frame's CRC: all its data is there, and it is whole (the CRC's
        // bytes are not taken for data).
        let inCRC = try open(Array(full[0..<(full.count - 12 - 2)]))
        #expect(inCRC.info.frameCount == 2)
        #expect(try frames(inCRC)[1] == frames(open(full))[1])
        // Only IEND missing: everything is there.
        let e = try open(Array(full[0..<(full.count - 12)]))
        #expect(e.info.frameCount == 2)
        #expect(e.info.warnings.contains { $0.contains("truncated") })
        // Empty and signature-only inputs.
        expectError(Array(full[0..<8])) { $0.kind == .invalid }
        expectError(Array(full[0..<20])) { $0.kind == .invalid }
    }

    /// Frames reached in any order give the same pixels (the decoder keeps no hidden state
    /// beyond its scratch buffers).
    @Test func randomOrderEqualsSequential() throws {
        let file = PNGBytes.signature + PNGBytes.ihdr(3, 3) + PNGBytes.acTL(frames: 3)
            + PNGBytes.fcTL(0, 3, 3) + PNGBytes.idat(PNGBytes.solid(3, 3, [0, 0, 255, 128]))
            + PNGBytes.fcTL(1, 2, 2, dispose: 2, blend: 1) + PNGBytes.fdAT(2, PNGBytes.solid(2, 2, [255, 0, 0, 100]))
            + PNGBytes.fcTL(3, 1, 3, x: 2, blend: 1) + PNGBytes.fdAT(4, PNGBytes.solid(1, 3, [0, 255, 0, 200]))
            + PNGBytes.iend
        let seq = try frames(open(file))
        let c = try Compositor(decoder: open(file))
        for i in [2, 0, 1, 2, 1, 0] { #expect(c.frame(at: i).snapshot() == seq[i], "frame \(i)") }
    }
}
