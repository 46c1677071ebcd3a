import Synchronization
import AnimatedCore

/// Prepares frames for the sixel output on the producer thread: scales the canvas, flattens it
/// over the background (in the scaling pass, for `AreaAverageScaler`) and encodes it with
/// `SixelEncoder`; the frame buffer holds only the sixel bytes, zstd-compressed (`payload`;
/// `sixel(of:using:)` gives them back), so later plays re-send them without encoding again.
/// The first frame is held uncompressed, the sixel as it is (`holdsRawSixel`), for the screen
/// waits for it; when the producer asks (`StreamingFrameScaler`), its bytes also go to the
/// display as its bands are written, and the display writes them meanwhile (`FrameStream`,
/// `InlineImageOutput.writeAhead`).
///
/// Why compressed: an enlarged frame's sixel is large (about 300 KB at 1200×675, 50 MB for
/// the 150-frame benchmark video), more than the buffer's budget, so later plays encoded most
/// frames again and the buffer kept the process's memory high. Sixel text compresses about
/// 4× (zstd, see `compressor`); compressing once and decompressing before each write cost far
/// less than encoding.
///
/// The encoder keeps state between frames (the shared palette) and scratch memory, so it lives
/// behind a mutex: the producer thread is its only user in practice, the lock only makes that
/// safe to rely on.
package final class SixelFramePreparer: StreamingFrameScaler {
    package let scaler: any FrameScaler
    private let state: Mutex<State>

    /// How held frames are compressed: zstd level 5 with smaller match tables than the level's
    /// (2^16 and 2^15 entries, 0.8 MB of context instead of 3 MB). On the 1200×675 frames of the
    /// benchmark video (issue 21) it held 10.9 MB where zlib level 1 held 13.3 and zstd level 1
    /// 12.2, compressed in about zlib level 1's time (3.0 ms a frame, zstd 1: 1.1) and
    /// decompressed in 0.4 ms instead of zlib's 1.0: the first play costs no more, later plays
    /// less, and the bytes held (most of the process's memory at --fill) are 18 % fewer.
    static func compressor() -> Zstd.Compressor { Zstd.Compressor(level: 5, hashLog: 16, chainLog: 15) }

    /// The encoder, its compressor and its buffers, reused from frame to frame. Where the
    /// scaler makes rows one at a time (`AreaAverageScaler.scalesRows`: `--fill`'s bilinear
    /// enlargements and mild reductions), frames the shared palette serves are scaled a row at
    /// a time into `pixels` and each row mapped as it comes (`SixelEncoder.encodeRows`): no
    /// RGB frame exists; the others (the first, a scene change) are scaled whole into pages
    /// of their own for that frame (`ScratchPages`). Other scalers scale whole frames into
    /// `pixels`, flattened there to RGB and encoded from it. A frame costs no full-size
    /// allocation from malloc but the compressed sixel the frame buffer keeps.
    /// @unchecked Sendable: only ever used inside `state.withLock`, one thread at a time.
    private final class State: @unchecked Sendable {
        let encoder: SixelEncoder
        let compressor = SixelFramePreparer.compressor()
        var pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        var capacity = 0
        /// Row-by-row attempts that failed in a row, and frames left to scale whole before the
        /// next attempt (1, 3, 7, then 15 after 1 to 4 failures): in a video whose frames keep
        /// reaching new colours (dithered GIFs) rows rarely serve, and each failed attempt
        /// scaled and mapped the frame for nothing (+15 % CPU on such a video without this).
        var rowFailures = 0, wholeFrames = 0
        /// Frames prepared so far.
        var prepared = 0
        /// The first frame's RGB pages, unmapped when the next frame starts (see
        /// `ScratchPages.Later`).
        let later = ScratchPages.Later()
        init(_ encoder: SixelEncoder) { self.encoder = encoder }
        deinit { pixels.deallocate() }

        func buffer(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
            if capacity < bytes { pixels.deallocate(); pixels = .allocate(capacity: bytes); capacity = bytes }
            return pixels
        }
    }

    /// `registers`: the terminal's colour registers (XTSMGRAPHICS), 256 at most.
    package init(registers: Int, background: BackgroundMode, scaler: any FrameScaler = AreaAverageScaler()) {
        self.scaler = scaler
        state = Mutex(State(SixelEncoder(registers: registers, background: background)))
    }

    package func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        prepare(canvas, index: index, to: size, streaming: nil)
    }

    /// The first frame's sixel goes to `stream` as its bands are written (`FrameStream`: the
    /// display writes it meanwhile); other frames' do not (they are compressed whole).
    package func scale(_ canvas: Canvas, index: Int, to size: RenderSize, streaming stream: FrameStream) -> ScaledFrame {
        prepare(canvas, index: index, to: size, streaming: stream)
    }

    private func prepare(_ canvas: Canvas, index: Int, to size: RenderSize, streaming stream: FrameStream?) -> ScaledFrame {
        let w = max(1, size.width), h = max(1, size.height)
        let (payload, raw) = state.withLock { state -> ([UInt8], Bool) in
            let encoder = state.encoder
            state.later.release()
            let background = encoder.background, terminalColor = encoder.terminalColor
            // Only the first frame is held raw, so only its bytes can be the stream's.
            let publish: SixelEncoder.Publish? = state.prepared == 0 ? stream.map { $0.append } : nil
            // Only rows with translucent pixels are flattened (the others are scaled to RGB).
            let flatten: AreaAverageScaler.RowFlattener = { rgba, y, rgb in
                OpaqueFrame.flatten(rgba, width: w, height: 1, firstRow: y, background: background,
                                    terminalColor: terminalColor, into: rgb)
            }
            let sixel: UnsafeBufferPointer<UInt8>
            if let area = scaler as? AreaAverageScaler, area.scalesRows(canvas, width: w, height: h) {
                let row = state.buffer(w * 4)
                let attempt = encoder.sharesPalette && state.wholeFrames == 0
                if attempt, let rows = encoder.encodeRows(width: w, height: h, rows: { sink in
                    area.scaleRows(canvas, width: w, height: h, rowBuffer: row, flatten: flatten, row: sink)
                }) {
                    sixel = rows
                    state.rowFailures = 0
                } else {
                    if attempt {
                        state.rowFailures += 1
                        state.wholeFrames = (1 << min(4, state.rowFailures)) - 1
                    } else if state.wholeFrames > 0 {
                        state.wholeFrames -= 1
                    }
                    // The first frame's rows in halves on two threads, as its bands (`SixelEncoder`).
                    let halves = state.prepared == 0 && w * h >= SixelEncoder.halvesPixels
                    sixel = ScratchPages.with(bytes: w * h * 4, unmappingLater: halves ? state.later : nil) { raw in
                        let buf = raw.bindMemory(to: UInt8.self, capacity: w * h * 4)
                        area.scale(canvas, width: w, height: h, intoRGB: buf, halves: halves, flatten: flatten)
                        return encoder.encodeInPlace(rgb: buf, width: w, height: h, publish: publish)
                    }
                }
            } else {
                let buf = state.buffer(w * h * 4)
                if let area = scaler as? AreaAverageScaler {
                    area.scale(canvas, width: w, height: h, intoRGB: buf, flatten: flatten)
                } else {
                    let frame = scaler.scale(canvas, index: index, to: RenderSize(width: w, height: h))
                    frame.pixels.withUnsafeBufferPointer { buf.update(from: $0.baseAddress!, count: w * h * 4) }
                    OpaqueFrame.flatten(buf, width: w, height: h, background: background, terminalColor: terminalColor, into: buf)
                }
                sixel = encoder.encodeInPlace(rgb: buf, width: w, height: h, publish: publish)
            }
            let first = state.prepared == 0
            state.prepared += 1
            guard let base = sixel.baseAddress, !sixel.isEmpty else { return ([], false) }
            let bytes = UnsafeRawBufferPointer(start: base, count: sixel.count)
            // The first frame: nothing is on screen yet, and compressing it took as long as
            // writing its bands (3 ms at 1200×675), decompressing it another 0.4: it is held as
            // it is (four times the bytes, for one frame), and written from where it is held.
            return first ? ([UInt8](bytes), true) : (state.compressor.compress(bytes), false)
        }
        return ScaledFrame(index: index, size: RenderSize(width: w, height: h), pixels: [], payload: payload,
                           typicalSize: !raw)
    }

    /// The sixel image (DCS … ST) of a frame this preparer made; empty if it holds none.
    package static func sixel(of frame: ScaledFrame, using decompressor: Zstd.Decompressor) -> [UInt8] {
        sixel(of: frame, between: [], and: [], using: decompressor)
    }

    /// Whether `frame` holds its sixel as it is rather than compressed (the first frame): it
    /// then starts with the DCS's ESC, where a zstd frame starts with its magic number (28 B5
    /// 2F FD).
    package static func holdsRawSixel(_ frame: ScaledFrame) -> Bool { frame.payload.first == 0x1B }

    /// `prefix`, the sixel image of `frame` and `suffix` in one array: the only copy a frame
    /// written to the terminal needs (its length from the zstd frame's header, decompressed
    /// straight into it, nothing zero-filled first). Empty if the frame holds no sixel or a
    /// damaged one.
    package static func sixel(of frame: ScaledFrame, between prefix: [UInt8], and suffix: [UInt8],
                              using decompressor: Zstd.Decompressor) -> [UInt8] {
        if holdsRawSixel(frame) { return prefix + frame.payload + suffix }
        return frame.payload.withUnsafeBytes { payload in
            guard let n = Zstd.Decompressor.contentSize(payload), n > 0,
                  n <= Self.largestSixel(frame.size) else { return [] }
            var ok = true
            let out = [UInt8](unsafeUninitializedCapacity: prefix.count + n + suffix.count) { out, count in
                let base = out.baseAddress!
                base.update(from: prefix, count: prefix.count)
                let image = UnsafeMutableRawBufferPointer(start: base + prefix.count, count: n)
                ok = decompressor.decompress(payload, into: image) == n
                guard ok else { count = 0; return }
                (base + prefix.count + n).update(from: suffix, count: suffix.count)
                count = prefix.count + n + suffix.count
            }
            return ok ? out : []
        }
    }

    /// The most bytes `SixelBandWriter` can write for a frame of `size`: the header and 256
    /// registers, then per band at most one pass per colour (at most 256, and at most one per
    /// pixel), each at most a colour change and a byte per column. A damaged header that
    /// announces more is not believed (it must not make us reserve gigabytes).
    static func largestSixel(_ size: RenderSize) -> Int {
        let w = max(1, size.width), h = max(1, size.height)
        return 64 + 256 * 20 + (h + 5) / 6 * min(256, 6 * w) * (w + 6) + 2 * (h + 5) / 6
    }

    /// Palettes built so far (1: one palette served the whole animation).
    package var palettesBuilt: Int { state.withLock { $0.encoder.palettesBuilt } }
}
