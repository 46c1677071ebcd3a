import CSixel
import AnimatedCore

/// Encodes whole frames as sixel images (`ESC P q … ESC \`) with libsixel.
///
/// Colours: at most `registers` (the terminal's XTSMGRAPHICS answer, 256 at most). libsixel
/// builds palettes (median cut, `sixel_dither_initialize`); the pixels are mapped to a palette
/// here and handed to libsixel as indices (PAL8), so that libsixel only encodes and the mapping
/// error of every frame is known. That error decides the palette policy:
/// - the palette of the first frame is shared by every later frame while it serves, i.e. while a
///   frame mapped to it stays within `tolerance` dB of the first frame's own fidelity (or above
///   `goodEnough` dB): the colours of a still background never change between frames;
/// - a frame it does not serve (a scene change) gets a palette of its own.
/// No error diffusion: dither noise would change between frames of a still scene (shimmer) and
/// costs bytes (runs break up).
///
/// One encoder per thread: it owns libsixel objects and scratch memory.
package final class SixelEncoder {
    package let registers: Int
    package let background: BackgroundMode
    package let terminalColor: (UInt8, UInt8, UInt8)?
    /// Shared palette acceptance: within this many dB of the first frame's PSNR…
    static let tolerance = 3.0
    /// …or at least this PSNR.
    static let goodEnough = 40.0

    /// Statistics of the last `encode`.
    package private(set) var lastPSNR = Double.infinity
    package private(set) var lastUsedSharedPalette = false
    /// Palettes built so far (1 when one palette served the whole animation).
    package private(set) var palettesBuilt = 0

    private var shared: [UInt8]?
    private var sharedPSNR = Double.infinity
    private let map = SixelPaletteMap()
    private var indices: [UInt8] = []
    private var output: OpaquePointer?
    private var bytes: [UInt8] = []

    package init(registers: Int = 256, background: BackgroundMode, terminalColor: (UInt8, UInt8, UInt8)? = nil) {
        self.registers = max(2, min(256, registers))
        self.background = background
        self.terminalColor = terminalColor
    }

    deinit { if let output { sixel_output_unref(output) } }

    /// The frame as one sixel image (DCS … ST), drawn from the cursor position. Empty when
    /// libsixel fails (out of memory).
    package func encode(_ frame: ScaledFrame) -> [UInt8] {
        encode(OpaqueFrame(frame, background: background, terminalColor: terminalColor))
    }

    package func encode(_ frame: OpaqueFrame) -> [UInt8] {
        let pixels = frame.size.width * frame.size.height
        guard pixels > 0 else { return [] }
        var chosen: [UInt8]
        var error: UInt64
        if let shared {
            map.setPaletteIfChanged(shared)
            error = map.map(frame, into: &indices)
            let psnr = SixelPaletteMap.psnr(squaredError: error, pixels: pixels)
            lastUsedSharedPalette = psnr >= Self.goodEnough || psnr >= sharedPSNR - Self.tolerance
            chosen = shared
            if !lastUsedSharedPalette {
                guard let own = buildPalette(frame) else { return [] }
                map.setPalette(own)
                error = map.map(frame, into: &indices)
                chosen = own
            }
        } else {
            guard let own = buildPalette(frame) else { return [] }
            map.setPalette(own)
            error = map.map(frame, into: &indices)
            shared = own
            sharedPSNR = SixelPaletteMap.psnr(squaredError: error, pixels: pixels)
            lastUsedSharedPalette = true
            chosen = own
        }
        lastPSNR = SixelPaletteMap.psnr(squaredError: error, pixels: pixels)
        return writeSixel(width: frame.size.width, height: frame.size.height, palette: chosen)
    }

    /// Forgets the shared palette (a different animation, or colours that no longer fit).
    package func resetPalette() { shared = nil; sharedPSNR = .infinity }

    /// The frame's own colours when there are at most `registers` of them (GIF frames, flat
    /// art: libsixel's median cut would round them), else a median-cut palette of `registers`
    /// colours. At least 2 entries: libsixel's minimum.
    private func buildPalette(_ frame: OpaqueFrame) -> [UInt8]? {
        palettesBuilt += 1
        if var exact = Self.distinctColours(frame, limit: registers) {
            if exact.count == 3 { exact += exact }
            return exact
        }
        var dither: OpaquePointer?
        guard animplay_sixel_failed(sixel_dither_new(&dither, Int32(registers), nil)) == 0, let dither else { return nil }
        defer { sixel_dither_unref(dither) }
        var rgb = frame.rgb   // libsixel's API takes a mutable pointer (it does not write)
        let status = rgb.withUnsafeMutableBufferPointer {
            sixel_dither_initialize(dither, $0.baseAddress, Int32(frame.size.width), Int32(frame.size.height),
                                    SIXEL_PIXELFORMAT_RGB888, SIXEL_LARGE_AUTO, SIXEL_REP_AUTO, SIXEL_QUALITY_AUTO)
        }
        guard animplay_sixel_failed(status) == 0, let p = sixel_dither_get_palette(dither) else { return nil }
        let n = Int(sixel_dither_get_num_of_palette_colors(dither))
        guard n > 0 else { return nil }
        var palette = Array(UnsafeBufferPointer(start: p, count: n * 3))
        if n == 1 { palette += palette }
        return palette
    }

    /// The distinct colours of `frame` (RGB triples), or nil when there are more than `limit`.
    /// An open-addressing set of 1024 slots (limit ≤ 256 keeps it at most a quarter full).
    static func distinctColours(_ frame: OpaqueFrame, limit: Int) -> [UInt8]? {
        var slots = [UInt32](repeating: UInt32.max, count: 1024)
        var colours: [UInt8] = []
        colours.reserveCapacity(limit * 3)
        var count = 0
        let n = frame.size.width * frame.size.height
        let ok = frame.rgb.withUnsafeBufferPointer { src -> Bool in
            slots.withUnsafeMutableBufferPointer { table -> Bool in
                guard var s = src.baseAddress, let t = table.baseAddress else { return true }
                var last = UInt32.max
                for _ in 0..<n {
                    let key = UInt32(s[0]) << 16 | UInt32(s[1]) << 8 | UInt32(s[2])
                    s += 3
                    if key == last { continue }
                    last = key
                    var h = Int((key &* 0x9E37_79B1) >> 22)
                    while t[h] != UInt32.max && t[h] != key { h = (h + 1) & 1023 }
                    if t[h] == key { continue }
                    count += 1
                    if count > limit { return false }
                    t[h] = key
                    colours.append(UInt8(key >> 16)); colours.append(UInt8((key >> 8) & 0xFF)); colours.append(UInt8(key & 0xFF))
                }
                return true
            }
        }
        return ok ? colours : nil
    }

    private func writeSixel(width: Int, height: Int, palette: [UInt8]) -> [UInt8] {
        if output == nil {
            var o: OpaquePointer?
            // The callback's context is this encoder, which owns the output object (so it is
            // alive whenever libsixel calls back, always from inside `sixel_encode`).
            let me = Unmanaged.passUnretained(self).toOpaque()
            let status = sixel_output_new(&o, { data, size, priv in
                guard let data, let priv, size > 0 else { return 0 }
                let encoder = Unmanaged<SixelEncoder>.fromOpaque(priv).takeUnretainedValue()
                data.withMemoryRebound(to: UInt8.self, capacity: Int(size)) {
                    encoder.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: Int(size)))
                }
                return size
            }, me, nil)
            guard animplay_sixel_failed(status) == 0, let o else { return [] }
            sixel_output_set_encode_policy(o, SIXEL_ENCODEPOLICY_SIZE)
            output = o
        }
        var dither: OpaquePointer?
        guard animplay_sixel_failed(sixel_dither_new(&dither, Int32(palette.count / 3), nil)) == 0, let dither else { return [] }
        defer { sixel_dither_unref(dither) }
        var pal = palette
        pal.withUnsafeMutableBufferPointer { sixel_dither_set_palette(dither, $0.baseAddress) }
        sixel_dither_set_pixelformat(dither, SIXEL_PIXELFORMAT_PAL8)
        bytes.removeAll(keepingCapacity: true)
        let status = indices.withUnsafeMutableBufferPointer {
            sixel_encode($0.baseAddress, Int32(width), Int32(height), 8, dither, output)
        }
        guard animplay_sixel_failed(status) == 0 else { return [] }
        return bytes
    }
}

extension SixelPaletteMap {
    func setPaletteIfChanged(_ p: [UInt8]) { if p != palette { setPalette(p) } }
}
