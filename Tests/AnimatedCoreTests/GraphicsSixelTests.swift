#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal
import AnimatedTestSupport

/// A smooth frame with many colours (more than 256): gradients in r and g, a diagonal in b.
func gradientFrame(_ w: Int, _ h: Int, index: Int = 0, shift: Int = 0) -> ScaledFrame {
    var px = [UInt8](repeating: 255, count: w * h * 4)
    for y in 0..<h {
        for x in 0..<w {
            let o = (y * w + x) * 4
            px[o] = UInt8((x + shift) * 255 / max(1, w - 1 + shift))
            px[o + 1] = UInt8(y * 255 / max(1, h - 1))
            px[o + 2] = UInt8(((x + y) * 128 / max(1, w + h)) + 64)
        }
    }
    return ScaledFrame(index: index, size: RenderSize(width: w, height: h), pixels: px)
}

func solidFrame(_ w: Int, _ h: Int, _ rgba: (UInt8, UInt8, UInt8, UInt8), index: Int = 0) -> ScaledFrame {
    var px = [UInt8](repeating: 0, count: w * h * 4)
    for k in 0..<(w * h) { px[k * 4] = rgba.0; px[k * 4 + 1] = rgba.1; px[k * 4 + 2] = rgba.2; px[k * 4 + 3] = rgba.3 }
    return ScaledFrame(index: index, size: RenderSize(width: w, height: h), pixels: px)
}

@Suite struct GraphicsSixelTests {
    @Test func fewColoursDecodeBackWithinThePercentRounding() throws {
        // Four quadrants of four colours: the palette holds them exactly; sixel colours are
        // percentages, so each channel comes back within 255/200.
        let w = 37, h = 23   // neither a multiple of 6 rows nor even
        var px = [UInt8](repeating: 255, count: w * h * 4)
        let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 200, 0), (10, 20, 250), (240, 240, 16)]
        for y in 0..<h { for x in 0..<w {
            let c = colours[(y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1)]
            let o = (y * w + x) * 4
            px[o] = c.0; px[o + 1] = c.1; px[o + 2] = c.2
        } }
        let f = ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: px)
        let enc = SixelEncoder(background: .terminal)
        let out = enc.encode(f)
        let img = try SixelTestImage.decode(out)
        #expect(img.width == w && img.height == h)
        let opaque = OpaqueFrame(f, background: .terminal)
        for (k, p) in img.pixels.enumerated() {
            let p = try #require(p, "pixel \(k) unpainted")
            #expect(abs(Int(p.0) - Int(opaque.rgb[k * 3])) <= 1 && abs(Int(p.1) - Int(opaque.rgb[k * 3 + 1])) <= 1
                    && abs(Int(p.2) - Int(opaque.rgb[k * 3 + 2])) <= 1, "pixel \(k)")
        }
        #expect(enc.lastPSNR == .infinity)
    }

    @Test func gradientDecodesBackWithinTheQuantiserError() throws {
        let f = gradientFrame(160, 90)
        for registers in [256, 16] {
            let enc = SixelEncoder(registers: registers, background: .terminal)
            let img = try SixelTestImage.decode(enc.encode(f))
            #expect(img.registersDefined <= registers)
            let psnr = try #require(img.psnr(against: OpaqueFrame(f, background: .terminal)))
            // What the encoder measured (before percent rounding) and what a terminal shows agree.
            #expect(abs(psnr - enc.lastPSNR) < 1.5, "registers \(registers): decoded \(psnr) vs measured \(enc.lastPSNR)")
            #expect(psnr > (registers == 256 ? 32 : 22), "registers \(registers): PSNR \(psnr)")
        }
    }

    @Test func transparentPixelsAreFlattenedOverTheBackground() throws {
        let f = solidFrame(8, 8, (255, 0, 0, 0))
        let img = try SixelTestImage.decode(SixelEncoder(background: .color(0, 0, 255)).encode(f))
        // Every pixel painted (nothing of a previous frame shows through), in the background.
        #expect(img.pixels.allSatisfy { $0.map { $0 == (0, 0, 255) } ?? false })
        let img2 = try SixelTestImage.decode(SixelEncoder(background: .terminal, terminalColor: (255, 255, 255)).encode(f))
        #expect(img2.pixels.allSatisfy { $0.map { $0 == (255, 255, 255) } ?? false })
    }

    @Test func oneSharedPaletteWhileItServesAnOwnPaletteOnASceneChange() throws {
        let enc = SixelEncoder(background: .terminal)
        let a = try SixelTestImage.decode(enc.encode(gradientFrame(120, 60)))
        #expect(enc.palettesBuilt == 1 && enc.lastUsedSharedPalette)
        // A slightly moved gradient: the first palette still serves.
        _ = enc.encode(gradientFrame(120, 60, index: 1, shift: 4))
        #expect(enc.palettesBuilt == 1 && enc.lastUsedSharedPalette)
        // A frame in colours the palette lacks (greens only) gets its own.
        var px = [UInt8](repeating: 255, count: 120 * 60 * 4)
        for k in 0..<(120 * 60) { px[k * 4] = 0; px[k * 4 + 1] = UInt8(k % 120 * 2); px[k * 4 + 2] = 0 }
        let green = ScaledFrame(index: 2, size: RenderSize(width: 120, height: 60), pixels: px)
        let b = try SixelTestImage.decode(enc.encode(green))
        #expect(enc.palettesBuilt == 2 && !enc.lastUsedSharedPalette)
        #expect(try #require(b.psnr(against: OpaqueFrame(green, background: .terminal))) > 35)
        #expect(a.width == 120)
        // The scene's palette is shared from then on: the next green frame builds none.
        for k in 0..<(120 * 60) { px[k * 4 + 1] = UInt8(min(255, k % 120 * 2 + 1)) }
        let green2 = ScaledFrame(index: 3, size: RenderSize(width: 120, height: 60), pixels: px)
        let c = try SixelTestImage.decode(enc.encode(green2))
        #expect(enc.palettesBuilt == 2 && enc.lastUsedSharedPalette)
        #expect(try #require(c.psnr(against: OpaqueFrame(green2, background: .terminal))) > 35)
    }
}

/// Palette building (issue 20.3): colours covering an area are never lost, every register is used.
/// The encoder maps each band's indices just before writing it, with no index plane of the
/// whole frame: its bytes must be those of mapping the whole frame first, in the order of the
/// lookups then (the rows sampled for the palette decision, then the others top to bottom; a
/// built palette's table keeps the entry of the first colour of each slot, so the order shows).
@Suite struct SixelBandMappingTests {
    /// The gradient with seeded noise of ±8 levels: many colours share a table slot.
    static func noisyGradient(_ w: Int, _ h: Int, shift: Int, seed: UInt32) -> ScaledFrame {
        var px = gradientFrame(w, h, shift: shift).pixels
        var state = seed
        for k in 0..<(w * h) {
            for c in 0..<3 {
                state = state &* 1_103_515_245 &+ 12345
                px[k * 4 + c] = UInt8(clamping: Int(px[k * 4 + c]) + Int(state >> 16 & 15) - 8)
            }
        }
        return ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: px)
    }

    /// Greens only: no palette of the gradients serves it.
    static func greens(_ w: Int, _ h: Int, _ offset: Int) -> ScaledFrame {
        var px = [UInt8](repeating: 255, count: w * h * 4)
        for k in 0..<(w * h) { px[k * 4] = 0; px[k * 4 + 1] = UInt8((k % w * 2 + offset) % 256); px[k * 4 + 2] = 0 }
        return ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: px)
    }

    /// Four flat colours: an exact palette.
    static func quadrants(_ w: Int, _ h: Int) -> ScaledFrame {
        var px = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h { for x in 0..<w {
            let o = (y * w + x) * 4, q = (y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1)
            px[o] = [250, 0, 10, 240][q]; px[o + 1] = [0, 200, 20, 240][q]; px[o + 2] = [0, 0, 250, 16][q]
        } }
        return ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: px)
    }

    /// Whether two maps of a built palette hold the same table: a colour of every slot looked
    /// up in both without filling any (`mapIndicesDeferring`) gets the same entry or waits in both.
    static func sameTables(_ a: SixelPaletteMap, _ b: SixelPaletteMap) -> Bool {
        var colours = [UInt8](repeating: 0, count: 3 << 18)
        for slot in 0..<(1 << 18) {
            colours[slot * 3] = UInt8((slot >> 12) << 2); colours[slot * 3 + 1] = UInt8((slot >> 6) & 63) << 2
            colours[slot * 3 + 2] = UInt8(slot & 63) << 2
        }
        func lookUp(_ m: SixelPaletteMap, unset: UInt8) -> [UInt8] {
            var out = [UInt8](repeating: unset, count: 1 << 18)
            colours.withUnsafeBufferPointer { c in
                out.withUnsafeMutableBufferPointer { o in
                    _ = m.mapIndicesDeferring(rgb: c.baseAddress!, pixels: 1 << 18, into: o.baseAddress!, at: 0, limit: 1 << 18)
                }
            }
            m.discardDeferred()
            return out
        }
        // Entries are written, waiting slots keep the value they had: twice, to tell them apart.
        return lookUp(a, unset: 0) == lookUp(b, unset: 0) && lookUp(a, unset: 255) == lookUp(b, unset: 255)
    }

    /// Heights that are no multiple of 4 or 6, odd widths; 601×437 is large enough for the
    /// first frame's bands in halves (from a plane of its own).
    @Test(arguments: [(61, 35), (121, 62), (601, 437)])
    func bandsMappedAsTheyAreWrittenAreTheWholeFramesBytes(size: (Int, Int)) throws {
        let (w, h) = size
        let frames = [Self.noisyGradient(w, h, shift: 0, seed: 1), Self.noisyGradient(w, h, shift: 3, seed: 2),
                      Self.greens(w, h, 0), Self.greens(w, h, 1), Self.quadrants(w, h),
                      Self.noisyGradient(w, h, shift: 1, seed: 3), Self.noisyGradient(w, h, shift: 2, seed: 4)]
        // Own palette (built or exact) or the shared one, frame by frame.
        let expectedShared = [true, true, false, true, false, false, true]
        let enc = SixelEncoder(background: .terminal)
        // `rowOrder` lives as `reference` does but maps the shared palette's frames top to bottom
        // (sampled rows in their turn), as a band-by-band encoder would without the sample.
        let reference = SixelPaletteMap(), rowOrder = SixelPaletteMap()
        var orderMattered = false
        var built = 0
        for (k, frame) in frames.enumerated() {
            let got = enc.encode(frame)
            let own = enc.palettesBuilt > built
            built = enc.palettesBuilt
            #expect(own == (k == 0 || !expectedShared[k]) && enc.lastUsedSharedPalette == expectedShared[k], "frame \(k)")
            let rgb = OpaqueFrame(frame, background: .terminal).rgb
            var plane = [UInt8](repeating: 0, count: w * h)
            rgb.withUnsafeBufferPointer { src in
                plane.withUnsafeMutableBufferPointer { dst in
                    let s = src.baseAddress!, d = dst.baseAddress!
                    if own {
                        let exact = SixelEncoder.distinctColours(rgb: s, pixels: w * h, limit: 256) != nil
                        reference.setPalette(enc.lastPalette, exact: exact)
                        rowOrder.setPalette(enc.lastPalette, exact: exact)
                        var whole = [UInt8](repeating: 0, count: w * h)
                        whole.withUnsafeMutableBufferPointer { _ = rowOrder.map(rgb: s, pixels: w * h, into: $0.baseAddress!) }
                        if k == 0 && w * h >= SixelEncoder.halvesPixels {
                            // The first frame in halves: the lower one by a map of its own, whose
                            // entries the encoder's map adopts; its table must end as the one map
                            // of the whole frame's (`rowOrder`), so that later frames are the same.
                            let split = SixelBandWriter.split(height: h), lower = SixelPaletteMap()
                            lower.setPalette(enc.lastPalette, exact: exact)
                            _ = reference.map(rgb: s, pixels: split * w, into: d)
                            _ = lower.map(rgb: s + split * w * 3, pixels: (h - split) * w, into: d + split * w)
                            reference.adoptEntries(of: lower)
                            #expect(Self.sameTables(reference, rowOrder), "frame 0 of \(w)×\(h)")
                            #expect(Array(dst[0..<(split * w)]) == Array(whole[0..<(split * w)]))
                        } else {
                            _ = reference.map(rgb: s, pixels: w * h, into: d)
                        }
                    } else {
                        #expect(reference.palette == enc.lastPalette)
                        for y in stride(from: 0, to: h, by: 4) { _ = reference.map(rgb: s + y * w * 3, pixels: w, into: d + y * w) }
                        for y in 0..<h where y % 4 != 0 { reference.mapIndices(rgb: s + y * w * 3, pixels: w, into: d + y * w) }
                        var other = [UInt8](repeating: 0, count: w * h)
                        other.withUnsafeMutableBufferPointer { rowOrder.mapIndices(rgb: s, pixels: w * h, into: $0.baseAddress!) }
                        if other != Array(dst) { orderMattered = true }
                    }
                }
            }
            let expected = plane.withUnsafeBufferPointer {
                SixelBandWriter().write(indices: $0.baseAddress!, width: w, height: h, palette: enc.lastPalette)
            }
            #expect(got == expected, "frame \(k) of \(w)×\(h)")
        }
        #expect(orderMattered, "the frames never tell the lookup orders apart")
    }
}

/// Frames the shared palette serves are encoded from rows handed over one at a time
/// (`SixelEncoder.encodeRows`, the RGB frame never whole): the bytes must be those of the
/// whole frame (`encodeInPlace`), and when the rows are not enough (no palette yet, a scene
/// change, too many table lookups waiting) nothing is encoded and the whole frame is.
@Suite struct SixelRowEncodingTests {
    /// Rows of `frame` to `encodeRows`, else the whole frame to `encodeInPlace`; the bytes,
    /// whether rows sufficed and how many rows were asked for.
    static func encode(_ frame: ScaledFrame, _ enc: SixelEncoder) -> ([UInt8], Bool, Int) {
        let rgb = OpaqueFrame(frame, background: .terminal).rgb
        let (w, h) = (frame.size.width, frame.size.height)
        var asked = 0
        return rgb.withUnsafeBufferPointer { src in
            let s = src.baseAddress!
            if enc.sharesPalette, let bytes = enc.encodeRows(width: w, height: h, rows: { row in
                // Each row from a buffer of its own, overwritten after: only the call may read it.
                var one = [UInt8](repeating: 0, count: w * 3)
                for y in 0..<h {
                    asked += 1
                    one.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: s + y * w * 3, count: w * 3) }
                    let more = one.withUnsafeBufferPointer { row($0.baseAddress!, y) }
                    one.withUnsafeMutableBufferPointer { $0.update(repeating: 0xA5) }
                    if !more { break }
                }
            }) {
                return (Array(bytes), true, asked)
            }
            return (Array(enc.encodeInPlace(rgb: s, width: w, height: h)), false, asked)
        }
    }

    @Test(arguments: [(61, 35), (121, 62), (601, 437)])
    func rowsWriteTheWholeFramesBytes(size: (Int, Int)) throws {
        let (w, h) = size
        typealias T = SixelBandMappingTests
        let frames = [T.noisyGradient(w, h, shift: 0, seed: 1), T.noisyGradient(w, h, shift: 3, seed: 2),
                      T.greens(w, h, 0), T.greens(w, h, 1), T.quadrants(w, h), T.quadrants(w, h),
                      T.noisyGradient(w, h, shift: 1, seed: 3), T.noisyGradient(w, h, shift: 2, seed: 4),
                      gradientFrame(w, h, shift: 9)]
        let rows = SixelEncoder(background: .terminal), whole = SixelEncoder(background: .terminal)
        var byRows: [Bool] = [], asked: [Int] = []
        for (k, frame) in frames.enumerated() {
            let (got, fromRows, n) = Self.encode(frame, rows)
            asked.append(n)
            let expected = whole.encode(frame)
            #expect(got == expected, "frame \(k) of \(w)×\(h) (from rows: \(fromRows))")
            #expect(rows.palettesBuilt == whole.palettesBuilt && rows.lastUsedSharedPalette == whole.lastUsedSharedPalette)
            byRows.append(fromRows)
        }
        // The first frame and the scene changes (greens, quadrants, back to gradients) whole;
        // the second green and quadrants frames from rows (built and exact palettes). The noisy
        // gradients' noise reaches new table slots: in small frames more than an eighth of the
        // pixels wait (given up, whole), in the large one fewer (rows).
        #expect([0, 2, 4, 6].allSatisfy { !byRows[$0] } && byRows[3] && byRows[5], "\(byRows)")
        if w * h > 100_000 { #expect(byRows[1] && byRows[7] && byRows[8], "\(byRows)") }
        // A scene change shows in its first rows: the rest are not asked for. Frames from rows
        // took every row.
        #expect([2, 4, 6].allSatisfy { asked[$0] < h / 2 }, "rows asked: \(asked)")
        #expect(byRows.indices.allSatisfy { !byRows[$0] || asked[$0] == h }, "rows asked: \(asked)")
    }

    /// A frame the shared palette serves but with colours in many empty slots of its table
    /// (more than an eighth of the pixels): given up, the whole frame encoded, the same bytes.
    @Test func tooManyWaitingLookupsFallBackToTheWholeFrame() throws {
        let (w, h) = (96, 40)
        // The gradient in levels 8m + 3, then in levels 8m + 4: one level apart (the palette
        // serves), but every colour of the second in a slot (4 levels a channel) the first
        // left empty.
        var a = gradientFrame(w, h).pixels, b = a
        for k in 0..<(w * h) { for c in 0..<3 { a[k * 4 + c] = a[k * 4 + c] & 0xF8 | 3; b[k * 4 + c] = b[k * 4 + c] & 0xF8 + 4 } }
        let first = ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: a)
        let second = ScaledFrame(index: 1, size: RenderSize(width: w, height: h), pixels: b)
        let rows = SixelEncoder(background: .terminal), whole = SixelEncoder(background: .terminal)
        for (k, frame) in [first, second].enumerated() {
            let (got, fromRows, _) = Self.encode(frame, rows)
            #expect(got == whole.encode(frame), "frame \(k)")
            #expect(!fromRows, "frame \(k)")
        }
        #expect(whole.palettesBuilt == 1 && whole.lastUsedSharedPalette, "the second frame was served")
    }
}

/// The preparer scales frames the shared palette serves a row at a time (`--fill`'s fused
/// scaling loop): the same sixel as scaling whole frames and encoding them.
@Suite struct SixelPreparerRowTests {
    @Test(arguments: [(150, 84), (121, 73), (60, 34)])   // enlargements by fractions, a mild reduction
    func preparedFramesAreTheWholeFramesSixels(size: (Int, Int)) throws {
        let target = RenderSize(width: size.0, height: size.1)
        let preparer = SixelFramePreparer(registers: 256, background: .color(20, 30, 40))
        let whole = SixelEncoder(background: .color(20, 30, 40))
        let decompressor = Zstd.Decompressor()
        for k in 0..<4 {
            // A gradient moving by a pixel a frame, with a translucent band (flattened rows).
            let g = gradientFrame(64, 36, shift: k)
            let canvas = Canvas(width: 64, height: 36)
            for i in 0..<g.pixels.count { canvas.pixels[i] = g.pixels[i] }
            for y in 10..<14 { for x in 0..<64 { canvas.pixels[(y * 64 + x) * 4 + 3] = UInt8(40 * k + 30) } }
            let frame = preparer.scale(canvas, index: k, to: target)
            let scaled = AreaAverageScaler().scale(canvas, index: k, to: target)
            #expect(SixelFramePreparer.sixel(of: frame, using: decompressor) == whole.encode(scaled), "frame \(k)")
        }
        #expect(preparer.palettesBuilt == whole.palettesBuilt)
    }
}

@Suite struct SixelPaletteTests {
    /// A smooth colourful background (the gradient) with a flat grey disc over `share` of it,
    /// like orbit.webp's moon enlarged.
    func moonFrame(_ w: Int, _ h: Int, radius: Int) -> ScaledFrame {
        var f = gradientFrame(w, h).pixels
        for y in 0..<h { for x in 0..<w {
            let dx = x - w / 2, dy = y - h / 2
            if dx * dx + dy * dy <= radius * radius {
                let o = (y * w + x) * 4
                f[o] = 208; f[o + 1] = 208; f[o + 2] = 208
            }
        } }
        return ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: f)
    }

    @Test(arguments: [256, 64, 16])
    func aFlatGreyDiscKeepsItsColour(registers: Int) throws {
        // The disc covers 2 % of the frame; the rest has thousands of colours.
        let f = moonFrame(300, 200, radius: 24)
        let enc = SixelEncoder(registers: registers, background: .terminal)
        let img = try SixelTestImage.decode(enc.encode(f))
        let p = enc.lastPalette
        var nearest = Int.max
        for i in stride(from: 0, to: p.count, by: 3) {
            let d: Int = abs(Int(p[i]) - 208) + abs(Int(p[i + 1]) - 208) + abs(Int(p[i + 2]) - 208)
            nearest = min(nearest, d)
        }
        #expect(nearest == 0, "registers \(registers): nearest entry to the grey is \(nearest) away")
        // What a terminal shows at the disc's centre is the grey (within sixel's percent rounding).
        let c = try #require(img.pixels[100 * 300 + 150])
        #expect(abs(Int(c.0) - 208) <= 2 && abs(Int(c.1) - 208) <= 2 && abs(Int(c.2) - 208) <= 2)
    }

    @Test(arguments: [256, 100, 16])
    func everyRegisterIsUsedWhenThereAreMoreColours(registers: Int) throws {
        let enc = SixelEncoder(registers: registers, background: .terminal)
        let img = try SixelTestImage.decode(enc.encode(gradientFrame(256, 128)))
        #expect(enc.lastPalette.count == registers * 3)
        #expect(img.registersDefined == registers)
    }

    @Test func moreRegistersGiveSmallerErrors() {
        let f = gradientFrame(200, 100)
        var last = 0.0
        for registers in [16, 64, 256] {
            let enc = SixelEncoder(registers: registers, background: .terminal)
            _ = enc.encode(f)
            #expect(enc.lastPSNR > last + 3, "registers \(registers): \(enc.lastPSNR) dB")
            last = enc.lastPSNR
        }
    }

    /// The histogram counted in two halves (a first frame's, on two threads): the same palette
    /// as one pass, whether the halves share bins or not, with reserved colours (the disc) or
    /// not; the builders are reused from frame to frame (the helper leaves its histogram clear).
    @Test func histogramInHalvesGivesTheSamePalette() {
        let plain = SixelPaletteBuilder(), builder = SixelPaletteBuilder(), helper = SixelPaletteBuilder()
        let frames = [moonFrame(300, 200, radius: 24), gradientFrame(301, 201), gradientFrame(64, 37, shift: 40),
                      moonFrame(120, 80, radius: 30), gradientFrame(2, 1), gradientFrame(1, 3)]
        for f in frames {
            let rgb = OpaqueFrame(f, background: .terminal, terminalColor: nil).rgb
            let n = f.size.width * f.size.height
            for registers in [256, 16] {
                let one = rgb.withUnsafeBufferPointer { plain.palette(rgb: $0.baseAddress!, pixels: n, registers: registers) }
                let halves = rgb.withUnsafeBufferPointer {
                    builder.palette(rgb: $0.baseAddress!, pixels: n, registers: registers, helper: helper)
                }
                #expect(halves == one, "\(f.size.width)x\(f.size.height), \(registers) registers")
            }
        }
    }

    /// The median cut's sort: the order `sort(by:)` gives (stable) over a part of the array,
    /// with many equal keys, -0 and 0, negative keys, and runs of every length up to 300.
    @Test func theCutsSortIsTheStableSort() {
        var x: UInt32 = 12345
        func next() -> UInt32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
        for n in [0, 1, 2, 3, 5, 17, 64, 299, 300] {
            let keys: [Float] = (0..<400).map { _ in
                let r = next()
                switch r % 5 {
                case 0: return Float(r % 7)                 // few distinct values: ties
                case 1: return r % 2 == 0 ? -0.0 : 0.0
                case 2: return -Float(r % 1000) / 7
                default: return Float(r % 100_000) / 391
                }
            }
            let start = Int(next() % 50)
            var generator = SplitMix(state: UInt64(n) + 1)
            var order = (0..<Int32(400)).shuffled(using: &generator)
            var expected = order
            expected[start..<(start + n)].sort { keys[Int($0)] < keys[Int($1)] }
            SixelPaletteBuilder.Box.stableSort(&order, start..<(start + n)) { keys[Int($0)] }
            #expect(order == expected, "\(n) keys from \(start)")
        }
    }

    @Test func largeAreasWeighMoreThanRareColours() {
        // Half the frame one red, a quarter one blue, the rest 1000 distinct greys in single
        // pixels: with 8 registers red and blue stay exact, the greys share the rest.
        var px: [UInt8] = []
        let w = 100, h = 40
        for k in 0..<(w * h) {
            if k < w * h / 2 { px += [200, 30, 40, 255] } else if k < w * h * 3 / 4 { px += [20, 40, 220, 255] }
            else { let v = UInt8(k % 250); px += [v, v, UInt8(min(255, Int(v) + 3)), 255] }
        }
        let enc = SixelEncoder(registers: 8, background: .terminal)
        _ = enc.encode(ScaledFrame(index: 0, size: RenderSize(width: w, height: h), pixels: px))
        let p = enc.lastPalette
        let entries = stride(from: 0, to: p.count, by: 3).map { [p[$0], p[$0 + 1], p[$0 + 2]] }
        #expect(entries.contains([200, 30, 40]) && entries.contains([20, 40, 220]))
        #expect(entries.count == 8)
    }
}

@Suite struct SixelFramePreparerTests {
    @Test func framesAreEnlargedEncodedAndKeptCompressed() throws {
        // A 64×36 gradient canvas filled to 150×84 (a fraction: the smooth enlarger).
        let g = gradientFrame(64, 36)
        let canvas = Canvas(width: 64, height: 36)
        for i in 0..<g.pixels.count { canvas.pixels[i] = g.pixels[i] }
        let size = RenderSize(width: 150, height: 84)
        let preparer = SixelFramePreparer(registers: 256, background: .terminal)
        let first = preparer.scale(canvas, index: 6, to: size)
        let frame = preparer.scale(canvas, index: 7, to: size)
        #expect(frame.index == 7 && frame.size == size && frame.pixels.isEmpty)
        let decompressor = Zstd.Decompressor()
        let sixel = SixelFramePreparer.sixel(of: frame, using: decompressor)
        #expect(frame.payload.count * 2 < sixel.count)            // held compressed
        // The first frame (the screen waits for it) is held as it is: the sixel itself.
        #expect(first.index == 6 && !first.typicalSize && SixelFramePreparer.holdsRawSixel(first))
        #expect(first.payload == sixel && !SixelFramePreparer.holdsRawSixel(frame))
        #expect(SixelFramePreparer.sixel(of: first, using: decompressor) == sixel)
        let img = try SixelTestImage.decode(sixel)
        #expect(img.width == 150 && img.height == 84)
        let enlarged = AreaAverageScaler().scale(canvas, index: 7, to: size)
        let psnr = try #require(img.psnr(against: OpaqueFrame(enlarged, background: .terminal)))
        #expect(psnr > 32, "PSNR \(psnr)")
        #expect(SixelFramePreparer.sixel(of: ScaledFrame(index: 0, size: size, pixels: []), using: decompressor).isEmpty)
    }
}

extension SixelFramePreparerTests {
    @Test func theSixelComesBetweenPrefixAndSuffixAndADamagedPayloadGivesNothing() throws {
        let canvas = Canvas(width: 20, height: 13)
        let g = gradientFrame(20, 13)
        for i in 0..<g.pixels.count { canvas.pixels[i] = g.pixels[i] }
        let size = RenderSize(width: 31, height: 17)
        // The first frame is held as it is, the second compressed: both come between the two.
        let preparer = SixelFramePreparer(registers: 256, background: .terminal)
        let first = preparer.scale(canvas, index: 0, to: size)
        let frame = preparer.scale(canvas, index: 1, to: size)
        let decompressor = Zstd.Decompressor()
        let sixel = SixelFramePreparer.sixel(of: frame, using: decompressor)
        let img = try SixelTestImage.decode(sixel)
        #expect(img.width == 31 && img.height == 17)
        let framed = SixelFramePreparer.sixel(of: frame, between: [1, 2, 3], and: [9, 8], using: decompressor)
        #expect(framed == [1, 2, 3] + sixel + [9, 8])
        #expect(SixelFramePreparer.sixel(of: first, between: [1, 2, 3], and: [9, 8], using: decompressor) == framed)
        // A payload cut short does not decompress to the length it announces.
        let cut = ScaledFrame(index: 0, size: size, pixels: [], payload: Array(frame.payload.dropLast(frame.payload.count / 2)))
        #expect(SixelFramePreparer.sixel(of: cut, between: [1], and: [2], using: decompressor).isEmpty)
        // Bytes that are no zstd frame (the zlib stream of earlier versions), or an empty payload.
        let other = ScaledFrame(index: 0, size: size, pixels: [], payload: sixel.withUnsafeBytes { Zlib.compress($0, level: 1) })
        #expect(SixelFramePreparer.sixel(of: other, between: [1], and: [2], using: decompressor).isEmpty)
        #expect(SixelFramePreparer.sixel(of: ScaledFrame(index: 0, size: size, pixels: [], payload: []), using: decompressor).isEmpty)
        // The same context serves frame after frame (it keeps no state from a failed one).
        #expect(SixelFramePreparer.sixel(of: frame, using: decompressor) == sixel)
    }

    @Test func heldFramesAreSmallerThanTheSixelAndEveryDamagedByteGivesAllOrNothing() throws {
        // The 150×84 gradient: its sixel compressed, then each byte of the payload altered in
        // turn (no checksum: a changed literal may decompress to other bytes, but never to a
        // partial image nor past the buffer).
        let g = gradientFrame(64, 36)
        let canvas = Canvas(width: 64, height: 36)
        for i in 0..<g.pixels.count { canvas.pixels[i] = g.pixels[i] }
        let preparer = SixelFramePreparer(registers: 256, background: .terminal)
        let size = RenderSize(width: 150, height: 84)
        // The first frame is held as it is (the screen waits for it), the next ones compressed.
        let first = preparer.scale(canvas, index: 0, to: size)
        let frame = preparer.scale(canvas, index: 1, to: size)
        let decompressor = Zstd.Decompressor()
        let sixel = SixelFramePreparer.sixel(of: frame, using: decompressor)
        #expect(SixelFramePreparer.sixel(of: first, using: decompressor) == sixel)
        #expect(!first.typicalSize && first.payload == sixel)
        #expect(frame.typicalSize && frame.payload.count * 2 < sixel.count)
        for i in 0..<frame.payload.count {
            var damaged = frame.payload
            damaged[i] ^= 0x5A
            let out = SixelFramePreparer.sixel(of: ScaledFrame(index: 0, size: frame.size, pixels: [], payload: damaged),
                                               between: [7], and: [8], using: decompressor)
            // The announced length is the header's: a damaged header may announce another.
            let announced = damaged.withUnsafeBytes { Zstd.Decompressor.contentSize($0) }
            #expect(out.isEmpty || (out.count == 2 + announced! && out.first == 7 && out.last == 8), "byte \(i)")
        }
        #expect(SixelFramePreparer.sixel(of: frame, using: decompressor) == sixel)
    }

    /// A payload that announces more bytes than any sixel of its frame's size can hold gives
    /// nothing (and reserves nothing), though it decompresses well.
    @Test func aPayloadAnnouncingMoreThanASixelOfItsSizeGivesNothing() {
        let size = RenderSize(width: 4, height: 4)
        let limit = SixelFramePreparer.largestSixel(size)
        let compressor = Zstd.Compressor(level: 1), decompressor = Zstd.Decompressor()
        for (n, kept) in [(limit, true), (limit + 1, false), (1 << 24, false)] {
            let bytes = [UInt8](repeating: 0x3F, count: n)
            let payload = bytes.withUnsafeBytes { compressor.compress($0) }
            let out = SixelFramePreparer.sixel(of: ScaledFrame(index: 0, size: size, pixels: [], payload: payload), using: decompressor)
            #expect(out.count == (kept ? n : 0), "\(n) bytes announced")
        }
    }
}

/// zstd through the reused contexts: round trips of any length (empty, one byte, the context's
/// own block size and past it), one compressor and one decompressor for all of them.
@Suite struct ZstdTests {
    @Test func roundTripsThroughReusedContexts() {
        var random = TestRandom("zstd round trip")
        let compressor = SixelFramePreparer.compressor()
        let decompressor = Zstd.Decompressor()
        for n in [0, 1, 2, 100, 4096, 131_072, 131_073, 400_000] {
            // Repetitive text with random runs: compressible, but not trivially.
            let bytes = (0..<n).map { i in i % 97 < 60 ? UInt8(63 + i % 7) : UInt8.random(in: 0...255, using: &random) }
            let frame = bytes.withUnsafeBytes { compressor.compress($0) }
            #expect(frame.withUnsafeBytes { Zstd.Decompressor.contentSize($0) } == n, "\(n) bytes, \(random)")
            var back = [UInt8](repeating: 0, count: n + 1)     // a byte to spare: the length is checked
            let got = back.withUnsafeMutableBytes { out in frame.withUnsafeBytes { decompressor.decompress($0, into: out) } }
            #expect(got == n && Array(back[..<n]) == bytes, "\(n) bytes, \(random)")
            if n > 0 {
                // Too small a space: nil, not a partial result.
                var short = [UInt8](repeating: 0, count: n - 1)
                let none = short.withUnsafeMutableBytes { out in frame.withUnsafeBytes { decompressor.decompress($0, into: out) } }
                #expect(none == nil)
            }
        }
        #expect([UInt8]().withUnsafeBytes { Zstd.Decompressor.contentSize($0) } == nil)
        #expect([UInt8](repeating: 0, count: 16).withUnsafeBytes { Zstd.Decompressor.contentSize($0) } == nil)
    }
}

/// The band writer against a plain one (every colour's row of masks built and run-length coded
/// pixel by pixel, exact masks, colours in register order): the same picture, pixel for pixel,
/// for every width (below, at and past the 8-byte word scans), height (whole and partial
/// bands) and mix of runs, in no more bytes; fewer where overdraw pays.
@Suite struct SixelBandWriterTests {
    static func plain(_ idx: [UInt8], _ w: Int, _ h: Int, _ palette: [UInt8]) -> [UInt8] {
        var out = Array("\u{1B}P0;0;0q\"1;1;\(w);\(h)".utf8)
        for i in 0..<(palette.count / 3) {
            let pct = (0..<3).map { (Int(palette[i * 3 + $0]) * 100 + 127) / 255 }
            out += Array("#\(i);2;\(pct[0]);\(pct[1]);\(pct[2])".utf8)
        }
        for y0 in stride(from: 0, to: h, by: 6) {
            var first = true
            for c in 0..<256 {
                var row = [UInt8](repeating: 0, count: w)
                for dy in 0..<min(6, h - y0) { for x in 0..<w where idx[(y0 + dy) * w + x] == c { row[x] |= UInt8(1 << dy) } }
                guard row.contains(where: { $0 != 0 }) else { continue }
                if !first { out.append(0x24) }
                first = false
                out += Array("#\(c)".utf8)
                let last = row.lastIndex(where: { $0 != 0 })!
                var x = 0
                while x <= last {
                    var n = 1
                    while x + n <= last && row[x + n] == row[x] { n += 1 }
                    let ch = 63 + row[x]
                    out += n > 3 ? Array("!\(n)".utf8) + [ch] : [UInt8](repeating: ch, count: n)
                    x += n
                }
            }
            if y0 + 6 < h { out.append(0x2D) }
        }
        return out + [0x1B, 0x5C]
    }

    /// 256 registers of distinct colours (in the percentages sixel carries), so that a pixel
    /// painted with the wrong register shows.
    static let palette: [UInt8] = (0..<256).flatMap { (i: Int) -> [UInt8] in
        let percents: [Int] = [i % 101, (i / 101) * 30 + 5, 77]
        return percents.map { (p: Int) -> UInt8 in UInt8((p * 255 + 50) / 100) }
    }

    static func randomRuns(_ w: Int, _ h: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        func next() -> UInt32 { state = state &* 1_103_515_245 &+ 12345; return state >> 16 }
        // Runs of random lengths (1 to 40) of a few colours, some sparse: long empty stretches
        // in most colours' rows, runs crossing word boundaries.
        var idx: [UInt8] = []
        while idx.count < w * h {
            let c = UInt8(next() % 5 == 0 ? next() % 256 : next() % 6)
            idx += [UInt8](repeating: c, count: Int(next() % 40) + 1)
        }
        return Array(idx.prefix(w * h))
    }

    @Test(arguments: [(1, 1), (7, 5), (8, 6), (9, 13), (15, 7), (16, 12), (40, 12), (333, 20), (50, 37)])
    func paintsThePlainWritersPictureInNoMoreBytes(size: (Int, Int)) throws {
        let (w, h) = size
        let idx = Self.randomRuns(w, h, seed: 12345)
        let plain = Self.plain(idx, w, h, Self.palette)
        let expected = try SixelTestImage.decode(plain)
        let writer = SixelBandWriter(), helper = SixelBandWriter()
        var outputs: [[UInt8]] = []
        for _ in 0..<2 {   // twice: the masks and counts must come back empty
            let got = idx.withUnsafeBufferPointer { writer.write(indices: $0.baseAddress!, width: w, height: h, palette: Self.palette) }
            let image = try SixelTestImage.decode(got)
            #expect(image.width == w && image.height == h)
            #expect(image.pixels.allSatisfy { $0 != nil }, "every pixel painted")
            #expect(zip(image.pixels, expected.pixels).allSatisfy { $0! == $1! }, "\(w)×\(h)")
            #expect(got.count <= plain.count)
            // The lower half's bands by the helper on a second thread: the same bytes.
            var plane = idx
            let halves = plane.withUnsafeMutableBufferPointer {
                Array(writer.writeInPlace(indices: $0.baseAddress!, width: w, height: h, palette: Self.palette, helper: helper,
                                          fillUpper: { _ in }, fillLower: { _ in }))
            }
            #expect(halves == got, "\(w)×\(h) in halves")
            // Band by band, each band's indices handed over just before it is written: the same bytes.
            var asked: [Int] = []
            let banded = idx.withUnsafeBufferPointer { src in
                Array(writer.writeInPlace(width: w, height: h, palette: Self.palette) { y0, n, band in
                    asked.append(y0)
                    band.update(from: src.baseAddress! + y0 * w, count: n * w)
                })
            }
            #expect(banded == got, "\(w)×\(h) band by band")
            #expect(asked == Array(stride(from: 0, to: h, by: 6)))
            outputs.append(got)
        }
        #expect(outputs[0] == outputs[1])
    }

    /// Noise of a few colours over a background: the background goes in one run per band and
    /// the noise colours in longer runs than their exact masks allow.
    @Test func overdrawWritesNoisyBandsInFewerBytes() throws {
        let (w, h) = (240, 36)
        var state: UInt32 = 7
        func next() -> UInt32 { state = state &* 1_103_515_245 &+ 12345; return state >> 16 }
        let idx = (0..<(w * h)).map { _ in next() % 3 == 0 ? UInt8(1 + next() % 4) : 0 }
        let plain = Self.plain(idx, w, h, Self.palette)
        let got = idx.withUnsafeBufferPointer { SixelBandWriter().write(indices: $0.baseAddress!, width: w, height: h, palette: Self.palette) }
        let image = try SixelTestImage.decode(got), expected = try SixelTestImage.decode(plain)
        #expect(zip(image.pixels, expected.pixels).allSatisfy { $0! == $1! })
        #expect(Double(got.count) < 0.9 * Double(plain.count), "\(got.count) vs \(plain.count)")
        // Each band starts with the background (the most pixels) in one run: "#0!240~".
        #expect(String(decoding: got, as: UTF8.self).components(separatedBy: "#0!240~").count == h / 6 + 1)
    }
}

@Suite struct SixelPaletteMapTests {
    @Test(arguments: [true, false])
    func indicesWithoutTheErrorAreTheSameIndices(exact: Bool) {
        var state: UInt32 = 99
        func next() -> UInt8 { state = state &* 1_103_515_245 &+ 12345; return UInt8(truncatingIfNeeded: state >> 16) }
        let palette = (0..<(64 * 3)).map { _ in next() }
        // Repeated pixels (the same-as-before shortcut) and fresh ones.
        var rgb: [UInt8] = []
        for _ in 0..<500 { let p = [next(), next(), next()]; for _ in 0..<Int(next() % 4 + 1) { rgb += p } }
        let n = rgb.count / 3
        let map = SixelPaletteMap()
        map.setPalette(palette, exact: exact)
        var a = [UInt8](repeating: 0, count: n), b = [UInt8](repeating: 1, count: n)
        let error = rgb.withUnsafeBufferPointer { s in a.withUnsafeMutableBufferPointer { map.map(rgb: s.baseAddress!, pixels: n, into: $0.baseAddress!) } }
        rgb.withUnsafeBufferPointer { s in b.withUnsafeMutableBufferPointer { map.mapIndices(rgb: s.baseAddress!, pixels: n, into: $0.baseAddress!) } }
        #expect(a == b)
        // The error is each pixel's distance to the entry it got; exact palettes get the nearest.
        var sum: UInt64 = 0
        for k in 0..<n {
            let d = (0..<3).map { Int(rgb[k * 3 + $0]) - Int(palette[Int(a[k]) * 3 + $0]) }
            let dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
            sum += UInt64(dd)
            if exact {
                let best = (0..<64).map { i in (0..<3).map { Int(rgb[k * 3 + $0]) - Int(palette[i * 3 + $0]) }.reduce(0) { $0 + $1 * $1 } }.min()!
                #expect(dd == best, "pixel \(k)")
            }
        }
        #expect(sum == error)
    }
    /// A built palette's table gets, for the first colour of each of its slots, the nearest
    /// entry (the lowest index on a tie), as a search of every entry would: the candidate lists
    /// must never leave the nearest entry out.
    @Test(arguments: [1, 2, 7, 64, 255, 256])
    func builtPalettesMapEachSlotsFirstColourToTheNearestEntry(entries: Int) {
        var state = UInt32(entries)
        func next() -> UInt8 { state = state &* 1_103_515_245 &+ 12345; return UInt8(truncatingIfNeeded: state >> 16) }
        // Random entries, some repeated (ties), some on cell faces (multiples of 16 and 15 past).
        var palette: [UInt8] = []
        for i in 0..<entries {
            if i % 5 == 4 { palette += palette[((i / 2) * 3)..<((i / 2) * 3 + 3)]; continue }
            palette += i % 7 == 3 ? [next() & 0xF0, next() | 0x0F, next() & 0xF0] : [next(), next(), next()]
        }
        // One colour per table slot (6 bits a channel), so every pixel is a table miss.
        var rgb: [UInt8] = [], slots = Set<Int>()
        for _ in 0..<6000 {
            let c = [next(), next(), next()]
            if slots.insert(Int(c[0] >> 2) << 12 | Int(c[1] >> 2) << 6 | Int(c[2] >> 2)).inserted { rgb += c }
        }
        for v: UInt8 in [0, 15, 16, 255] { rgb += [v, 255 - v, v] }     // the cube's corners and faces
        let n = rgb.count / 3
        let map = SixelPaletteMap()
        map.setPalette(palette, exact: false)
        var got = [UInt8](repeating: 0, count: n)
        _ = rgb.withUnsafeBufferPointer { s in got.withUnsafeMutableBufferPointer { map.map(rgb: s.baseAddress!, pixels: n, into: $0.baseAddress!) } }
        var wrong = 0
        var checked = Set<Int>()
        for k in 0..<n {
            let slot = Int(rgb[k * 3] >> 2) << 12 | Int(rgb[k * 3 + 1] >> 2) << 6 | Int(rgb[k * 3 + 2] >> 2)
            guard checked.insert(slot).inserted else { continue }   // later colours of a slot share its entry
            var best = 0, bestDistance = Int.max
            for i in 0..<entries {
                let d = (0..<3).map { Int(rgb[k * 3 + $0]) - Int(palette[i * 3 + $0]) }.reduce(0) { $0 + $1 * $1 }
                if d < bestDistance { bestDistance = d; best = i }
            }
            if Int(got[k]) != best { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) of \(checked.count) colours got another entry than the nearest")
    }
}
