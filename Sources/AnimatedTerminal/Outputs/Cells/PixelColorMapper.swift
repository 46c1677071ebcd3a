import AnimatedCore

/// How palette modes spread the error of the nearest palette colour (`--dither`).
public enum DitherMode: String, Sendable, CaseIterable {
    /// Each pixel takes its nearest colour: flat areas stay flat, gradients band.
    case none
    /// An 8×8 Bayer threshold pattern: stable from frame to frame (a still area stays
    /// identical while something else moves), so animations do not shimmer.
    case ordered
    /// Floyd–Steinberg error diffusion in linear light (serpentine): the closest average
    /// colour, but a change anywhere re-dithers everything after it in scan order.
    case diffusion
}

/// Turns a scaled frame into one cell colour per pixel (`CellColor` values): background
/// handling (`BackgroundMode.shown`), then in palette modes the palette index, dithered.
/// Kept apart from glyph choice so renderers differ only in how they build cells.
///
/// One mapper per thread: it owns its quantiser's cache and its scratch buffers.
final class PixelColorMapper {
    let mode: ColorMode
    let background: BackgroundMode
    let dither: DitherMode
    let quantizer: PaletteQuantizer?
    private var out: UnsafeMutablePointer<UInt32>
    private var capacity = 0
    private var errors: UnsafeMutablePointer<Float>   // two rows of (width + 2) × 3 floats
    private var errorCapacity = 0
    private var mixer: PaletteMixer?   // ordered dithering's two-entry plans, made on first use

    init(mode: ColorMode, background: BackgroundMode, dither: DitherMode = .none,
                palette16: [RGBColor]? = nil) {
        self.mode = mode; self.background = background
        self.dither = mode == .truecolor ? .none : dither
        quantizer = mode == .truecolor ? nil
            : PaletteQuantizer(mode: mode, palette16: palette16, keepHue: self.dither != .diffusion)
        out = .allocate(capacity: 1); capacity = 1
        errors = .allocate(capacity: 1); errorCapacity = 1
    }

    deinit { out.deallocate(); errors.deallocate() }

    /// 8×8 Bayer matrix, values 0–63.
    static let bayer: [UInt8] = [
        0, 32, 8, 40, 2, 34, 10, 42, 48, 16, 56, 24, 50, 18, 58, 26,
        12, 44, 4, 36, 14, 46, 6, 38, 60, 28, 52, 20, 62, 30, 54, 22,
        3, 35, 11, 43, 1, 33, 9, 41, 51, 19, 59, 27, 49, 17, 57, 25,
        15, 47, 7, 39, 13, 45, 5, 37, 63, 31, 55, 23, 61, 29, 53, 21]

    /// The colours of `frame`, row-major, valid until the next call.
    func map(_ frame: ScaledFrame) -> UnsafePointer<UInt32> {
        let w = frame.size.width, h = frame.size.height, n = w * h
        if n > capacity {
            out.deallocate(); out = .allocate(capacity: n); capacity = n
        }
        frame.pixels.withUnsafeBufferPointer { buf in
            guard let px = buf.baseAddress else { return }
            switch (quantizer, dither) {
            case (nil, _):
                for i in 0..<n { out[i] = background.shown(px + i * 4, x: i % w, y: i / w) }
            case (let q?, .none):
                for i in 0..<n { out[i] = Self.index(q, background.shown(px + i * 4, x: i % w, y: i / w)) }
            case (let q?, .ordered):
                mapOrdered(px, w, h, q)
            case (let q?, .diffusion):
                mapDiffused(px, w, h, q)
            }
        }
        return UnsafePointer(out)
    }

    @inline(__always)
    static func index(_ q: PaletteQuantizer, _ c: UInt32) -> UInt32 {
        c == CellColor.terminalDefault ? c : UInt32(q.index(UInt8(c >> 16), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)))
    }

    /// Ordered dithering with the 8×8 Bayer pattern.
    /// - 16 colours: two-entry mixes (see `PaletteMixer`): the 16 colours are spaced unevenly.
    /// - 256 colours: the pattern offsets the colour by up to ± half a cube step (steps are 40
    ///   code values) before quantising: the cube is evenly spaced, and this measured better
    ///   there than the mixes (Benchmarks/palette16.py).
    private func mapOrdered(_ px: UnsafePointer<UInt8>, _ w: Int, _ h: Int, _ q: PaletteQuantizer) {
        if mode == .palette16 && mixer == nil { mixer = PaletteMixer(quantizer: q) }
        let mixer = mode == .palette16 ? mixer : nil
        let spread: Float = 40
        Self.bayer.withUnsafeBufferPointer { bayer in
            for y in 0..<h {
                let row = bayer.baseAddress! + (y & 7) * 8
                for x in 0..<w {
                    let i = y * w + x
                    let c = background.shown(px + i * 4, x: x, y: y)
                    if c == CellColor.terminalDefault { out[i] = c; continue }
                    let level = Int(row[x & 7])
                    if let mixer {
                        out[i] = UInt32(mixer.index(UInt8(c >> 16), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF), level: level))
                    } else {
                        let o = ((Float(level) + 0.5) / 64 - 0.5) * spread
                        @inline(__always) func ch(_ v: UInt32) -> UInt8 { UInt8(min(max(Float(v) + o, 0), 255).rounded()) }
                        out[i] = UInt32(q.index(ch(c >> 16), ch(c >> 8 & 0xFF), ch(c & 0xFF)))
                    }
                }
            }
        }
    }

    private func mapDiffused(_ px: UnsafePointer<UInt8>, _ w: Int, _ h: Int, _ q: PaletteQuantizer) {
        let stride = (w + 2) * 3, need = 2 * stride
        if need > errorCapacity {
            errors.deallocate(); errors = .allocate(capacity: need); errorCapacity = need
        }
        errors.update(repeating: 0, count: need)
        let t = SRGBTables.shared
        let lin = t.toLinear
        var cur = errors, next = errors + stride   // index (x + 1) * 3: one guard column each side
        for y in 0..<h {
            let leftToRight = y & 1 == 0
            for k in 0..<w {
                let x = leftToRight ? k : w - 1 - k
                let i = y * w + x
                let e = cur + (x + 1) * 3
                let c = background.shown(px + i * 4, x: x, y: y)
                if c == CellColor.terminalDefault { out[i] = c; continue }   // no light to spread
                // The error is kept beyond 0...1 (clamping it away biases dark and light areas:
                // a dark teal needs black pixels that push the sum below 0), within bounds.
                let r = min(max(lin[Int(c >> 16)] + e[0], -0.5), 1.5)
                let g = min(max(lin[Int(c >> 8 & 0xFF)] + e[1], -0.5), 1.5)
                let b = min(max(lin[Int(c & 0xFF)] + e[2], -0.5), 1.5)
                let idx = q.index(t.srgb(fromLinear: r), t.srgb(fromLinear: g), t.srgb(fromLinear: b))
                out[i] = UInt32(idx)
                let (pr, pg, pb) = q.color(of: idx)
                let er = r - lin[Int(pr)], eg = g - lin[Int(pg)], eb = b - lin[Int(pb)]
                // Floyd–Steinberg weights, mirrored on right-to-left rows.
                let ahead = leftToRight ? 3 : -3
                Self.add(e + ahead, er, eg, eb, 7.0 / 16)
                let below = next + (x + 1) * 3
                Self.add(below - ahead, er, eg, eb, 3.0 / 16)
                Self.add(below, er, eg, eb, 5.0 / 16)
                Self.add(below + ahead, er, eg, eb, 1.0 / 16)
            }
            swap(&cur, &next)
            next.update(repeating: 0, count: stride)
        }
    }

    @inline(__always)
    private static func add(_ p: UnsafeMutablePointer<Float>, _ r: Float, _ g: Float, _ b: Float, _ f: Float) {
        p[0] += r * f; p[1] += g * f; p[2] += b * f
    }
}
