import AnimatedCore

/// Encodes whole frames as sixel images (`ESC P q … ESC \`).
///
/// Colours: at most `registers` (the terminal's XTSMGRAPHICS answer, 256 at most). A frame with
/// that few colours keeps them exactly; otherwise `SixelPaletteBuilder` makes a palette of every
/// register, weighted by area. The pixels are mapped to the palette here (`SixelPaletteMap`,
/// through tables) so that the mapping error of every frame is known. That error decides the
/// palette policy:
/// - the palette of the first frame is shared by every later frame while it serves, i.e. while a
///   frame mapped to it stays within `tolerance` dB of the first frame's own fidelity (or above
///   `goodEnough` dB): the colours of a still background never change between frames;
/// - a frame it does not serve (a scene change) gets a palette of its own, which is shared
///   from then on, measured against that frame's fidelity.
/// No error diffusion: dither noise would change between frames of a still scene (shimmer) and
/// costs bytes (runs break up).
///
/// The bands are written by `SixelBandWriter` rather than libsixel's `sixel_encode`: at 1200×675
/// libsixel's encoder took most of the frame's time (its per-pixel, per-colour loops), and
/// its median cut left registers unused and dropped colours that cover whole areas (issue 20.3).
///
/// One encoder per thread: it owns scratch memory (index plane, histogram, tables, band masks),
/// all reused from frame to frame. A large first frame's histogram and bands are made in two
/// halves at once, the second by a helper on a thread of its own (`SixelPaletteBuilder`'s and
/// `SixelBandWriter`'s helper forms): nothing is on screen yet.
package final class SixelEncoder {
    package let registers: Int
    package let background: BackgroundMode
    package let terminalColor: (UInt8, UInt8, UInt8)?
    /// Shared palette acceptance: within this many dB of the first frame's PSNR…
    static let tolerance = 3.0
    /// …or at least this PSNR.
    static let goodEnough = 40.0

    /// Statistics of the last `encode`. The PSNR is measured on every pixel when the frame got
    /// a palette of its own, on every 4th row when it took the shared one.
    package private(set) var lastPSNR = Double.infinity
    package private(set) var lastUsedSharedPalette = false
    /// Palettes built so far (1 when one palette served the whole animation).
    package private(set) var palettesBuilt = 0
    /// The palette of the last frame encoded (RGB triples).
    package private(set) var lastPalette: [UInt8] = []

    private var shared: (palette: [UInt8], exact: Bool)?
    private var sharedPSNR = Double.infinity
    private let map = SixelPaletteMap()
    private let builder = SixelPaletteBuilder()
    private let writer = SixelBandWriter()
    /// A first frame of at least this many pixels has its bands written in two halves at once.
    static let halvesPixels = 1 << 18
    /// Frames encoded so far.
    private var encoded = 0
    private var indices: UnsafeMutablePointer<UInt8>
    private var indexCapacity = 0

    package init(registers: Int = 256, background: BackgroundMode, terminalColor: (UInt8, UInt8, UInt8)? = nil) {
        self.registers = max(2, min(256, registers))
        self.background = background
        self.terminalColor = terminalColor
        indices = .allocate(capacity: 1)
    }

    deinit { indices.deallocate() }

    /// The frame as one sixel image (DCS … ST), drawn from the cursor position.
    package func encode(_ frame: ScaledFrame) -> [UInt8] {
        encode(OpaqueFrame(frame, background: background, terminalColor: terminalColor))
    }

    package func encode(_ frame: OpaqueFrame) -> [UInt8] {
        frame.rgb.withUnsafeBufferPointer { encode(rgb: $0.baseAddress!, width: frame.size.width, height: frame.size.height) }
    }

    /// `width`×`height` opaque RGB pixels (3 bytes each, rows packed) as one sixel image.
    package func encode(rgb: UnsafePointer<UInt8>, width: Int, height: Int) -> [UInt8] {
        Array(encodeInPlace(rgb: rgb, width: width, height: height))
    }

    /// As `encode(rgb:width:height:)`, in the encoder's own output buffer (no allocation): the
    /// bytes stay valid until the next encode.
    package func encodeInPlace(rgb: UnsafePointer<UInt8>, width: Int, height: Int) -> UnsafeBufferPointer<UInt8> {
        let pixels = width * height
        guard pixels > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        if indexCapacity < pixels {
            indices.deallocate()
            indices = .allocate(capacity: pixels)
            indexCapacity = pixels
        }
        var chosen: [UInt8]
        var error: UInt64
        var errorPixels = pixels
        if let shared {
            if map.palette != shared.palette || map.exact != shared.exact { map.setPalette(shared.palette, exact: shared.exact) }
            // Decided on every 4th row (mapping twice, to the shared palette and then to a new
            // one, was a third of a frame's time at 1200×675); each row is mapped once when the
            // shared palette serves, the whole frame again when it does not.
            var sampled: UInt64 = 0, rows = 0
            for y in stride(from: 0, to: height, by: 4) {
                sampled &+= map.map(rgb: rgb + y * width * 3, pixels: width, into: indices + y * width)
                rows += 1
            }
            let psnr = SixelPaletteMap.psnr(squaredError: sampled, pixels: rows * width)
            lastUsedSharedPalette = psnr >= Self.goodEnough || psnr >= sharedPSNR - Self.tolerance
            chosen = shared.palette
            if lastUsedSharedPalette {
                // The sampled rows are mapped already: the other three of every four remain,
                // without measuring (the sample's error stands for the frame's).
                for y in stride(from: 1, to: height, by: 4) {
                    let rows = min(3, height - y)
                    map.mapIndices(rgb: rgb + y * width * 3, pixels: rows * width, into: indices + y * width)
                }
                errorPixels = rows * width
                error = sampled
            } else {
                // The new palette becomes the shared one: the frames after a scene change (or
                // after a video drifted from its first frame) look like this one, and building
                // a palette and refilling the map's table for every one of them was a fifth of
                // a filled video frame's time.
                let own = buildPalette(rgb: rgb, pixels: pixels)
                map.setPalette(own.palette, exact: own.exact)
                error = map.map(rgb: rgb, pixels: pixels, into: indices)
                chosen = own.palette
                self.shared = own
                sharedPSNR = SixelPaletteMap.psnr(squaredError: error, pixels: pixels)
            }
        } else {
            // The first frame's histogram in halves on two threads, as its bands (below).
            let own = buildPalette(rgb: rgb, pixels: pixels, halves: encoded == 0 && pixels >= Self.halvesPixels)
            map.setPalette(own.palette, exact: own.exact)
            error = map.map(rgb: rgb, pixels: pixels, into: indices)
            shared = own
            sharedPSNR = SixelPaletteMap.psnr(squaredError: error, pixels: pixels)
            lastUsedSharedPalette = true
            chosen = own.palette
        }
        lastPSNR = SixelPaletteMap.psnr(squaredError: error, pixels: errorPixels)
        lastPalette = chosen
        encoded += 1
        if encoded == 1 && pixels >= Self.halvesPixels {
            // Nothing is on screen yet: the first frame's bands in halves, on two threads. Later
            // frames are prepared ahead of the display, where a second thread a frame only
            // added CPU time (the medium benchmark video, 150 frames: 3.17 s against 2.93).
            let helper = SixelBandWriter()
            return writer.writeInPlace(indices: indices, width: width, height: height, palette: chosen, helper: helper)
        }
        return writer.writeInPlace(indices: indices, width: width, height: height, palette: chosen)
    }

    /// Forgets the shared palette (a different animation, or colours that no longer fit).
    package func resetPalette() { shared = nil; sharedPSNR = .infinity }

    /// The frame's own colours when there are at most `registers` of them (GIF frames, flat
    /// art), else a palette of `registers` colours weighted by area. At least 2 entries.
    /// `halves`: the histogram counted in two halves on two threads (the same palette).
    private func buildPalette(rgb: UnsafePointer<UInt8>, pixels: Int, halves: Bool = false) -> (palette: [UInt8], exact: Bool) {
        palettesBuilt += 1
        if var exact = Self.distinctColours(rgb: rgb, pixels: pixels, limit: registers) {
            if exact.count == 3 { exact += exact }
            return (exact, true)
        }
        var palette = builder.palette(rgb: rgb, pixels: pixels, registers: registers,
                                      helper: halves ? SixelPaletteBuilder() : nil)
        if palette.count == 3 { palette += palette }
        return (palette, false)
    }

    /// The distinct colours of `frame` (RGB triples), or nil when there are more than `limit`.
    static func distinctColours(_ frame: OpaqueFrame, limit: Int) -> [UInt8]? {
        frame.rgb.withUnsafeBufferPointer { distinctColours(rgb: $0.baseAddress!, pixels: frame.size.width * frame.size.height, limit: limit) }
    }

    /// The distinct colours of `pixels` RGB triples, or nil when there are more than `limit`.
    /// An open-addressing set of 1024 slots (limit ≤ 256 keeps it at most a quarter full).
    static func distinctColours(rgb: UnsafePointer<UInt8>, pixels n: Int, limit: Int) -> [UInt8]? {
        var slots = [UInt32](repeating: UInt32.max, count: 1024)
        var colours: [UInt8] = []
        colours.reserveCapacity(limit * 3)
        var count = 0
        let ok = slots.withUnsafeMutableBufferPointer { table -> Bool in
            guard let t = table.baseAddress else { return true }
            var s = rgb
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
        return ok ? colours : nil
    }
}
