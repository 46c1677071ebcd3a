#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
/// One encoder per thread: it owns scratch memory (the sampled rows' indices, tables, band
/// masks), reused from frame to frame. A large first frame's histogram, mapping and bands are
/// made in two halves at once, the second on a thread of its own (`encodeFirstInHalves`):
/// nothing is on screen yet.
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
    /// The indices of every 4th row (the palette decision's sample), reused from frame to frame.
    private var sample: UnsafeMutablePointer<UInt8>
    private var sampleCapacity = 0
    /// The index plane of `encodeRows` (w × h), reused from frame to frame.
    private var plane: UnsafeMutablePointer<UInt8>
    private var planeCapacity = 0
    /// The first frame's scratch pages (histograms, index plane), unmapped when the next frame
    /// starts (see `ScratchPages.Later`), and for the same reason its lower half's map and band
    /// writer (0.2 ms to free their tables, masks and buffer), freed then.
    private let later = ScratchPages.Later()
    private var firstHalves: FirstFrameHalves?
    /// What the first frame left for later: mappings, and the lower half's objects (for tests).
    package var scratchWaiting: Int { later.count + (firstHalves == nil ? 0 : 1) }

    /// What the first frame left for later (see `later`), given back now.
    private func releaseFirstFrameScratch() {
        later.release()
        firstHalves = nil
    }

    package init(registers: Int = 256, background: BackgroundMode, terminalColor: (UInt8, UInt8, UInt8)? = nil) {
        self.registers = max(2, min(256, registers))
        self.background = background
        self.terminalColor = terminalColor
        sample = .allocate(capacity: 1)
        plane = .allocate(capacity: 1)
    }

    deinit { sample.deallocate(); plane.deallocate() }

    /// Where an image's bytes go while it is written: called with each next stretch of them,
    /// in order, on the thread that encodes (a first frame's, for the display to write while
    /// the rest is encoded: `FrameStream`).
    package typealias Publish = (UnsafeRawBufferPointer) -> Void

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
    ///
    /// No index plane of the whole frame is kept (0.8 MB at 1200×675, most of it for nothing:
    /// a band's indices are written right after they are mapped): the writer asks for each
    /// band's indices as it goes, and they are mapped then. The rows sampled for the palette
    /// decision are kept (a quarter of a plane). The order of the lookups is the one of a
    /// whole-frame mapping (the sampled rows, then the others top to bottom), which matters:
    /// a built palette's table keeps the entry of the first colour that filled each slot.
    ///
    /// `publish`: for a frame that gets a palette of its own (the first), the image's bytes as
    /// they are written (all of them, in order); a frame the shared palette serves is not
    /// published (it is not a first frame).
    package func encodeInPlace(rgb: UnsafePointer<UInt8>, width: Int, height: Int,
                               publish: Publish? = nil) -> UnsafeBufferPointer<UInt8> {
        let pixels = width * height
        releaseFirstFrameScratch()
        guard pixels > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        encoded += 1
        if let shared {
            if map.palette != shared.palette || map.exact != shared.exact { map.setPalette(shared.palette, exact: shared.exact) }
            // Decided on every 4th row (mapping twice, to the shared palette and then to a new
            // one, was a third of a frame's time at 1200×675); each row is mapped once when the
            // shared palette serves, the whole frame again when it does not.
            let rows = (height + 3) / 4
            if sampleCapacity < rows * width {
                sample.deallocate()
                sample = .allocate(capacity: rows * width)
                sampleCapacity = rows * width
            }
            let sample = sample
            var sampled: UInt64 = 0
            for k in 0..<rows {
                sampled &+= map.map(rgb: rgb + 4 * k * width * 3, pixels: width, into: sample + k * width)
            }
            let psnr = SixelPaletteMap.psnr(squaredError: sampled, pixels: rows * width)
            lastUsedSharedPalette = sharedServes(psnr: psnr)
            if lastUsedSharedPalette {
                // The sampled rows are mapped already: the other three of every four remain,
                // without measuring (the sample's error stands for the frame's).
                lastPSNR = psnr
                lastPalette = shared.palette
                let map = map
                return writer.writeInPlace(width: width, height: height, palette: shared.palette) { y0, n, band in
                    for dy in 0..<n {
                        let y = y0 + dy
                        if y % 4 == 0 {
                            (band + dy * width).update(from: sample + y / 4 * width, count: width)
                        } else {
                            map.mapIndices(rgb: rgb + y * width * 3, pixels: width, into: band + dy * width)
                        }
                    }
                }
            }
            // Not served: the new palette becomes the shared one. The frames after a scene
            // change (or after a video drifted from its first frame) look like this one, and
            // building a palette and refilling the map's table for every one of them was a
            // fifth of a filled video frame's time.
        } else {
            lastUsedSharedPalette = true
        }
        if encoded == 1 && pixels >= Self.halvesPixels {
            return encodeFirstInHalves(rgb: rgb, width: width, height: height, publish: publish)
        }
        let own = buildPalette(rgb: rgb, pixels: pixels)
        share(own)
        var error: UInt64 = 0
        let map = map
        let bytes = writer.writeInPlace(width: width, height: height, palette: own.palette, publish: publish) { y0, n, band in
            error &+= map.map(rgb: rgb + y0 * width * 3, pixels: n * width, into: band)
        }
        sharedPSNR = SixelPaletteMap.psnr(squaredError: error, pixels: pixels)
        lastPSNR = sharedPSNR
        return bytes
    }

    /// A large first frame, with nothing on screen yet: every step in halves on two threads.
    /// The histogram is counted in halves; while the palette is cut, the other thread makes
    /// ready what the mapping needs (both maps' tables, the index plane's pages, the helper's
    /// band masks); then each thread maps its half into an index plane made for this frame only
    /// (`ScratchPages`) and writes its bands (the upper half band by band, each mapped just
    /// before it is written, so that its bytes can go to `publish` from the first band on), the
    /// upper half's thread then taking the lower half's last bands (`SixelLowerBands`: the
    /// lower half is often the harder). The index
    /// plane's and the histograms' pages are unmapped when the next frame starts (`later`).
    ///
    /// The lower half is mapped with a map of its own, whose table entries this one then adopts
    /// where it has none: its table ends as one map of the whole frame would leave it (a slot
    /// keeps the entry nearest the first colour that filled it, upper rows first), so later
    /// frames are encoded as before. Only this frame's lower half may differ: a slot met in both
    /// halves gives its pixels there the entry nearest the lower half's first colour of the slot
    /// (at most ±3 levels a channel away). 1200×675, medium benchmark video: map and bands
    /// 10.6 → 9.2 ms (the lower half of its frame 0 misses the table 5 times as often as the
    /// upper, so not half).
    ///
    /// Later frames are prepared ahead of the display, where a second thread a frame only added
    /// CPU time (the medium benchmark video, 150 frames: 3.17 s against 2.93).
    private func encodeFirstInHalves(rgb: UnsafePointer<UInt8>, width: Int, height: Int,
                                     publish: Publish?) -> UnsafeBufferPointer<UInt8> {
        let pixels = width * height
        return ScratchPages.with(bytes: pixels, unmappingLater: later) { raw in
            let indices = raw.bindMemory(to: UInt8.self, capacity: pixels)
            let halves = FirstFrameHalves(upper: map, rgb: rgb, indices: indices, pixels: pixels)
            firstHalves = halves
            let own = buildPalette(rgb: rgb, pixels: pixels, halves: true, alongsideCut: { halves.prepare(width: width) },
                                   unmappingLater: later)
            share(own)
            let map = map, palette = own.palette, exact = own.exact
            var error: UInt64 = 0
            let bytes = writer.writeInPlace(
                indices: indices, width: width, height: height, palette: palette, helper: halves.writer, publish: publish,
                fillUpper: { rows in
                    error &+= map.map(rgb: rgb + rows.lowerBound * width * 3, pixels: rows.count * width,
                                      into: indices + rows.lowerBound * width)
                },
                fillLower: { rows in
                    halves.lower.setPalette(palette, exact: exact)
                    halves.error = halves.lower.map(rgb: halves.rgb + rows.lowerBound * width * 3, pixels: rows.count * width,
                                                    into: halves.indices + rows.lowerBound * width)
                })
            error &+= halves.error
            map.adoptEntries(of: halves.lower)
            sharedPSNR = SixelPaletteMap.psnr(squaredError: error, pixels: pixels)
            lastPSNR = sharedPSNR
            return bytes
        }
    }

    /// What the side threads of a first frame in halves work with: the encoder's map (made
    /// ready while the palette is cut), the lower half's map and band writer, the frame's pixels
    /// and index plane, and the error the lower half's mapping measured.
    /// @unchecked Sendable: it is handed to one side thread at a time (`prepare` during the cut,
    /// then the lower half's mapping), and until that thread is joined, the producer thread
    /// touches none of what the side thread does: not the encoder's map during the cut, and of
    /// the pixels and index plane only the upper half's rows while the lower half is mapped.
    private final class FirstFrameHalves: @unchecked Sendable {
        let upper: SixelPaletteMap
        let lower = SixelPaletteMap()
        let writer = SixelBandWriter()
        let rgb: UnsafePointer<UInt8>
        let indices: UnsafeMutablePointer<UInt8>
        let pixels: Int
        var error: UInt64 = 0

        init(upper: SixelPaletteMap, rgb: UnsafePointer<UInt8>, indices: UnsafeMutablePointer<UInt8>, pixels: Int) {
            self.upper = upper; self.rgb = rgb; self.indices = indices; self.pixels = pixels
        }

        /// Both maps' tables cleared for a built palette, the index plane's pages faulted in,
        /// the helper's masks made: about 1 ms of the first frame off the producer thread.
        func prepare(width: Int) {
            upper.clearTableAhead()
            lower.clearTableAhead()
            writer.fitRows(width)
            // Zero written over zero: only to fault each page in here.
            for offset in stride(from: 0, to: pixels, by: 4096) { indices[offset] = 0 }
        }
    }

    /// A frame's own palette, used from now on and shared with the frames after it.
    private func share(_ own: (palette: [UInt8], exact: Bool)) {
        map.setPalette(own.palette, exact: own.exact)
        shared = own
        lastPalette = own.palette
    }

    /// Whether the shared palette serves a frame whose sampled rows map to it at `psnr`.
    private func sharedServes(psnr: Double) -> Bool {
        psnr >= Self.goodEnough || psnr >= sharedPSNR - Self.tolerance
    }

    /// True once a palette is shared: from then on `encodeRows` can encode frames it serves.
    package var sharesPalette: Bool { shared != nil }

    /// Encodes a frame handed over row by row, when the shared palette serves it: `rows` calls
    /// its argument with each RGB row (`width` pixels) top to bottom, each row valid during
    /// the call, and stops when it returns false. Each row is mapped as it comes, so the
    /// frame's RGB never exists whole (2.4 MB at 1200×675), only its index plane (0.8 MB). The
    /// bytes are those `encodeInPlace` writes for the same frame: the sampled rows decide as
    /// there, and the other rows' lookups that would fill a slot of the table wait
    /// (`SixelPaletteMap.mapIndicesDeferring`) until every sampled row has been mapped, as there.
    ///
    /// Nil, with nothing encoded, when no palette is shared yet, when the shared one does not
    /// serve this frame (a new one needs the whole frame's colours), or when more than an
    /// eighth of the pixels waited: the caller then makes the frame whole and calls
    /// `encodeInPlace` (its decision is the same: lookups to the same table). Rows stop as soon
    /// as the answer is nil for certain: the sampled rows' error so far already too large for
    /// the shared palette (a scene change shows in its first rows), or too many lookups waiting.
    package func encodeRows(width: Int, height: Int,
                            rows: (_ row: (_ rgb: UnsafePointer<UInt8>, _ y: Int) -> Bool) -> Void) -> UnsafeBufferPointer<UInt8>? {
        let pixels = width * height
        releaseFirstFrameScratch()
        guard let shared, pixels > 0 else { return nil }
        if map.palette != shared.palette || map.exact != shared.exact { map.setPalette(shared.palette, exact: shared.exact) }
        if planeCapacity < pixels {
            plane.deallocate()
            plane = .allocate(capacity: pixels)
            planeCapacity = pixels
        }
        let plane = plane, map = map
        let limit = max(1, pixels / 8)
        // The error of the sampled rows only grows: past this bound (the PSNR the decision
        // below needs, over all sampled rows, with a margin for rounding) it cannot serve.
        let needed = min(Self.goodEnough, sharedPSNR - Self.tolerance)
        let bound = Double((height + 3) / 4 * width * 3) * 255 * 255 / pow(10, needed / 10) * 1.001 + 1
        var sampled: UInt64 = 0, sampledRows = 0, gaveUp = false
        rows { rgb, y in
            if y % 4 == 0 {
                sampled &+= map.map(rgb: rgb, pixels: width, into: plane + y * width)
                sampledRows += 1
                if Double(sampled) > bound { gaveUp = true }
            } else {
                gaveUp = !map.mapIndicesDeferring(rgb: rgb, pixels: width, into: plane + y * width, at: y * width, limit: limit)
            }
            return !gaveUp
        }
        let psnr = SixelPaletteMap.psnr(squaredError: sampled, pixels: sampledRows * width)
        guard !gaveUp, sharedServes(psnr: psnr) else {
            map.discardDeferred()
            return nil
        }
        map.resolveDeferred(into: plane)
        encoded += 1
        lastUsedSharedPalette = true
        lastPSNR = psnr
        lastPalette = shared.palette
        return writer.writeInPlace(indices: plane, width: width, height: height, palette: shared.palette)
    }

    /// Forgets the shared palette (a different animation, or colours that no longer fit).
    package func resetPalette() { shared = nil; sharedPSNR = .infinity }

    /// The frame's own colours when there are at most `registers` of them (GIF frames, flat
    /// art), else a palette of `registers` colours weighted by area. At least 2 entries.
    /// `halves`: the histogram counted in two halves on two threads (the same palette);
    /// `alongsideCut` runs on a thread of its own while a built palette is cut.
    private func buildPalette(rgb: UnsafePointer<UInt8>, pixels: Int, halves: Bool = false,
                              alongsideCut: (@Sendable () -> Void)? = nil,
                              unmappingLater later: ScratchPages.Later? = nil) -> (palette: [UInt8], exact: Bool) {
        palettesBuilt += 1
        if var exact = Self.distinctColours(rgb: rgb, pixels: pixels, limit: registers) {
            if exact.count == 3 { exact += exact }
            return (exact, true)
        }
        var palette = builder.palette(rgb: rgb, pixels: pixels, registers: registers,
                                      helper: halves ? SixelPaletteBuilder() : nil, alongsideCut: alongsideCut,
                                      unmappingLater: later)
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
