import AnimatedCore

/// Writes kitty graphics protocol commands: `ESC _ G <keys> ; <payload> ESC \` (APC).
///
/// Payloads are base64 text sent in chunks of at most 4096 bytes, each chunk its own command:
/// the first carries every key plus `m=1` when more follow, the later ones only `m` (and `q`,
/// repeated so that no reply slips through), the last `m=0`. Continuations of a frame upload
/// (`a=f`) also repeat `a=f`: kitty 0.26 dispatches a chunk by its action before it looks at
/// the load in progress, so a bare continuation is taken for image data and the frame is lost
/// (later kitty versions ignore the repeated key).
/// Inside tmux each command is wrapped for passthrough (`ESC P tmux; … ESC \`, every ESC of the
/// command doubled), which tmux forwards when its `allow-passthrough` option is on.
///
/// Uploads ask for error replies only (`q=1`: an out-of-storage or unsupported terminal says
/// so, see `KittyReplyFilter`); everything else is silent (`q=2`).
package struct KittyGraphics: Sendable {
    /// Wrap commands for tmux passthrough.
    package var tmux: Bool
    /// Where frame data is (`t=`): inline, or named by the payload (see `KittyMedium`).
    package var medium: KittyMedium = .direct
    /// Frame data is a zlib stream (`o=z`), else raw pixels (RGBA, or RGB for `f=24`).
    package var compressed = true
    package static let chunkBytes = 4096

    package init(tmux: Bool = false) { self.tmux = tmux }

    /// The keys that describe frame data: format (`channels` 3: RGB, `f=24`; else RGBA, `f=32`),
    /// compression, medium.
    private func data(_ channels: Int) -> String {
        (channels == 3 ? "f=24" : "f=32") + (compressed ? ",o=z" : "") + (medium == .direct ? "" : ",t=\(medium.rawValue)")
    }

    /// Appends one command with `keys` (e.g. `a=f,i=7,q=2`) and an optional base64 payload.
    /// `cursor`: bytes that move the outer terminal's cursor, written just before every chunk
    /// inside tmux's passthrough (tmux re-homes the real cursor after each passthrough, and
    /// kitty places an image where the cursor is when its last chunk arrives); outside tmux,
    /// once before the command.
    package func append(keys: String, payload: ArraySlice<UInt8> = [], cursor: [UInt8] = [], to out: inout [UInt8]) {
        if !tmux { out += cursor }
        let cursor = tmux ? cursor : []
        if payload.count <= Self.chunkBytes {
            command(Array(keys.utf8), payload, cursor: cursor, to: &out)
            return
        }
        let repeated = Self.repeatedKeys(keys)
        var start = payload.startIndex
        var first = true
        while start < payload.endIndex {
            let end = min(payload.endIndex, start + Self.chunkBytes)
            let more = end < payload.endIndex
            command(Self.chunkKeys(keys, repeated: repeated, first: first, more: more), payload[start..<end], cursor: cursor, to: &out)
            start = end; first = false
        }
    }

    /// The keys later chunks repeat (see the type's doc).
    private static func repeatedKeys(_ keys: String) -> [String] {
        var repeated = key("q", in: keys).map { [$0] } ?? []
        if let action = key("a", in: keys), action == "a=f" { repeated.insert(action, at: 0) }
        return repeated
    }

    /// The keys of one chunk of a command's payload.
    private static func chunkKeys(_ keys: String, repeated: [String], first: Bool, more: Bool) -> [UInt8] {
        var k: [UInt8] = first ? Array(keys.utf8) + Array(",".utf8) : []
        if !first { for r in repeated { k += Array(r.utf8) + [0x2C] } }
        k += Array((more ? "m=1" : "m=0").utf8)
        return k
    }

    /// A command whose data comes in pieces (the first frame's upload while it is compressed,
    /// `FrameStream`): `add` writes each chunk once the data after it has begun to come, and
    /// `finish` the last, so that the commands are those `append` makes of the whole data's
    /// base64 (a chunk's 4096 characters are 3072 bytes of data; data of one chunk or less is
    /// one command without `m`). Outside tmux only (the cursor is the caller's to move).
    package struct StreamedCommand {
        private let graphics: KittyGraphics
        private let keys: String
        private let repeated: [String]
        /// Data not yet written: at most a chunk's between calls (the last chunk waits for
        /// more data or `finish`).
        private var pending: [UInt8] = []
        private var first = true
        /// Bytes of data a chunk carries.
        private static let chunkData = KittyGraphics.chunkBytes / 4 * 3

        package init(_ graphics: KittyGraphics, keys: String) {
            precondition(!graphics.tmux, "streamed commands are written outside tmux only")
            self.graphics = graphics; self.keys = keys; repeated = KittyGraphics.repeatedKeys(keys)
        }

        /// The next piece of the data: appends to `out` the chunks it completes, but the last.
        package mutating func add(_ data: UnsafeRawBufferPointer, to out: inout [UInt8]) {
            pending += data
            var start = 0
            while pending.count - start > Self.chunkData {
                let chunk = pending.withUnsafeBytes { Base64.encode(UnsafeRawBufferPointer(rebasing: $0[start..<(start + Self.chunkData)])) }
                graphics.command(KittyGraphics.chunkKeys(keys, repeated: repeated, first: first, more: true), chunk[...],
                                 cursor: [], to: &out)
                first = false
                start += Self.chunkData
            }
            if start > 0 { pending.removeFirst(start) }
        }

        /// The data is whole: appends the last chunk (or the one command).
        package mutating func finish(to out: inout [UInt8]) {
            let chunk = pending.withUnsafeBytes { Base64.encode($0) }
            let k = first ? Array(keys.utf8) : KittyGraphics.chunkKeys(keys, repeated: repeated, first: false, more: false)
            graphics.command(k, chunk[...], cursor: [], to: &out)
            pending = []
        }
    }

    /// `name=value` from `keys`, if present.
    private static func key(_ name: String, in keys: String) -> String? {
        keys.split(separator: ",").first { $0.hasPrefix(name + "=") }.map(String.init)
    }

    private func command(_ keys: [UInt8], _ payload: ArraySlice<UInt8>, cursor: [UInt8], to out: inout [UInt8]) {
        if tmux { out += [0x1B, 0x50] + Array("tmux;".utf8) }
        let esc: [UInt8] = tmux ? [0x1B, 0x1B] : [0x1B]
        for b in cursor { if b == 0x1B { out += esc } else { out.append(b) } }
        out += esc; out += [0x5F, 0x47]          // ESC _ G
        out += keys
        if !payload.isEmpty { out.append(0x3B); out += payload }
        out += esc; out.append(0x5C)             // ESC \
        if tmux { out += [0x1B, 0x5C] }
    }

    // MARK: the commands animplay uses

    /// Transmits the root frame of image `id` and shows it at the cursor as placement `placement`
    /// (the cursor stays where it is: `C=1`). `payload`: base64 of the zlib stream of the RGBA
    /// (of RGB when `channels` is 3; `KittyAnimation.transmission` of a prepared frame).
    /// `cells`: the cells the terminal stretches the image over (`c=`/`r=`, either may be nil:
    /// kitty computes it from the aspect ratio); nil: one pixel of the image per screen pixel.
    package func transmitAndPlace(id: UInt32, placement: UInt32, size: RenderSize, payload: [UInt8], channels: Int = 4,
                                 moveCursor: Bool = false, cells: KittyCells? = nil, cursor: [UInt8] = [],
                                 to out: inout [UInt8]) {
        append(keys: transmitAndPlaceKeys(id: id, placement: placement, size: size, channels: channels, moveCursor: moveCursor,
                                          cells: cells),
               payload: payload[...], cursor: cursor, to: &out)
    }

    /// `transmitAndPlace`'s command, its data (not base64: the zlib stream itself) to come in
    /// pieces (`StreamedCommand`).
    package func streamedTransmitAndPlace(id: UInt32, placement: UInt32, size: RenderSize, channels: Int,
                                          cells: KittyCells?) -> StreamedCommand {
        StreamedCommand(self, keys: transmitAndPlaceKeys(id: id, placement: placement, size: size, channels: channels,
                                                         moveCursor: false, cells: cells))
    }

    private func transmitAndPlaceKeys(id: UInt32, placement: UInt32, size: RenderSize, channels: Int, moveCursor: Bool,
                                      cells: KittyCells?) -> String {
        "a=T,i=\(id),p=\(placement),\(data(channels)),s=\(size.width),v=\(size.height)"
            + (cells?.keys ?? "") + (moveCursor ? "" : ",C=1") + ",q=1"
    }

    /// Transmits and shows a still image at the cursor, without an id (kitty then sends no
    /// reply and the image is the user's, like one `cat` printed), moving the cursor past it.
    /// `moveCursor` false: the cursor stays where it is (`C=1`).
    package func transmitStill(size: RenderSize, payload: [UInt8], channels: Int = 4, cells: KittyCells? = nil, moveCursor: Bool = true,
                               to out: inout [UInt8]) {
        append(keys: "a=T,\(data(channels)),s=\(size.width),v=\(size.height)" + (cells?.keys ?? "") + (moveCursor ? "" : ",C=1") + ",q=2",
               payload: payload[...], to: &out)
    }

    /// Adds a frame to image `id` (it becomes the next frame number); not shown until `show`.
    package func addFrame(id: UInt32, size: RenderSize, payload: [UInt8], channels: Int = 4, to out: inout [UInt8]) {
        append(keys: "a=f,i=\(id),\(data(channels)),s=\(size.width),v=\(size.height),q=1", payload: payload[...], to: &out)
    }

    /// Replaces the data of frame `frame` of image `id` (overwriting, not blending: `X=1`).
    package func replaceFrame(id: UInt32, frame: Int, size: RenderSize, payload: [UInt8], channels: Int = 4,
                              to out: inout [UInt8]) {
        append(keys: "a=f,i=\(id),r=\(frame),X=1,\(data(channels)),s=\(size.width),v=\(size.height),q=1",
               payload: payload[...], to: &out)
    }

    /// Makes frame `frame` (1-based; 1 is the root frame) the one image `id` shows.
    package func show(id: UInt32, frame: Int, to out: inout [UInt8]) {
        append(keys: "a=a,i=\(id),c=\(frame),q=2", to: &out)
    }

    /// Places image `id` again at the cursor (placement `placement` replaces the old one).
    package func place(id: UInt32, placement: UInt32, to out: inout [UInt8]) {
        append(keys: "a=p,i=\(id),p=\(placement),C=1,q=2", to: &out)
    }

    /// Deletes image `id`: its placements and, with the upper-case key, its data (every frame).
    package func delete(id: UInt32, to out: inout [UInt8]) {
        append(keys: "a=d,d=I,i=\(id),q=2", to: &out)
    }
}

/// The kitty output's frame preparation, on the producer thread: scales the canvas with
/// `scaler`, then keeps only the data kitty receives (the zlib stream of the pixels), so that the
/// frame buffer holds encoded frames and the display thread only writes.
///
/// A frame whose every pixel is opaque goes as RGB (`f=24`, `ScaledFrame.channels` 3): a
/// quarter less data to compress, hold and send, and kitty shows it exactly as the same RGBA
/// (an opaque frame replaces what is under it whether it is blended or not).
///
/// The frame buffer holds the zlib stream, not its base64 text (made as it is written,
/// `KittyAnimation.transmission`): a third less memory a frame, so that the 300 frames of a
/// 1280×720 video (31 MB) fit the buffer's budget and later plays prepare nothing (as base64,
/// 236 fitted, and every play decoded and compressed the whole video again).
package struct KittyFramePreparer: TerminalKeepsFrames, StreamingFrameScaler {
    package let scaler: any FrameScaler
    /// zlib level: 1 is several times faster than the default 6 for a few percent more bytes.
    package let level: Int32
    /// `--bg`: a colour or the checkerboard is blended in here; any other mode keeps the alpha,
    /// and kitty composites the frame over the terminal's own background (exactly).
    package let background: BackgroundMode

    /// Frames are sent inline (base64 of the payload); else (`t=t`/`t=s` uploads) the payload
    /// is written to the file or shared memory, base64 being only for the name.
    package let inline: Bool
    /// zlib-compress (`o=z`, the default); else raw RGBA. Through shared memory or a file raw
    /// RGBA measured a little faster (animplay's CPU for the 640×360×150 GIF in kitty: 0.36 s
    /// raw, 0.47 s zlib, 0.52 s base64+zlib), but the frame buffer then holds raw frames: peak
    /// RSS 50 MB instead of 24 MB, and 1.4 MB frames no longer all fit the buffer, so later
    /// plays prepare them again. Compressed frames keep memory bounded and small.
    package let compress: Bool

    package init(scaler: any FrameScaler = AreaAverageScaler(), level: Int32 = 1,
                background: BackgroundMode = .terminal, medium: KittyMedium = .direct, compress: Bool? = nil) {
        self.scaler = scaler; self.level = level; self.background = background
        inline = medium == .direct
        self.compress = compress ?? true
    }

    package func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        prepare(canvas, index: index, to: size, streaming: nil)
    }

    /// The first frame's zlib stream goes to `stream` as it is compressed, when it goes inline
    /// and in halves as RGB (`pack`); other frames', and other forms, do not.
    package func scale(_ canvas: Canvas, index: Int, to size: RenderSize, streaming stream: FrameStream) -> ScaledFrame {
        prepare(canvas, index: index, to: size, streaming: inline && compress ? stream : nil)
    }

    private func prepare(_ canvas: Canvas, index: Int, to size: RenderSize, streaming stream: FrameStream?) -> ScaledFrame {
        if size.width == canvas.width && size.height == canvas.height && scaler is AreaAverageScaler,
           keepsAlpha {
            // The canvas's own size (the terminal scales, or it fits as it is) and nothing to
            // blend: compress the canvas itself rather than a copy of it.
            return canvas.withUnsafeBytes { pack($0, index: index, size: size, streaming: stream) }
        }
        var pixels = scaler.scale(canvas, index: index, to: size).pixels
        let w = max(1, size.width)
        if case .color(let r, let g, let b) = background {
            Self.flatten(&pixels, width: w) { _, _ in (r, g, b) }
        } else if background == .checker {
            Self.flatten(&pixels, width: w) { x, y in
                let light = ((x / BackgroundMode.checkerSquare) + (y / BackgroundMode.checkerSquare)) & 1 == 0
                let c = light ? BackgroundMode.checkerLight : BackgroundMode.checkerDark
                return (c, c, c)
            }
        }
        return pixels.withUnsafeBytes { pack($0, index: index, size: size, streaming: stream) }
    }

    /// The frame kitty receives for `rgba`: RGB when every pixel is opaque, zlib-compressed
    /// unless `compress` is off. The animation's first frame, which the screen waits for with
    /// nothing on it, is compressed in two halves at once when large (`Zlib.compressInHalves`,
    /// or `compressOpaqueRGBInHalves`, which makes the RGB as it goes);
    /// later frames are prepared ahead of the display, where a second thread a frame only added
    /// threads and memory (large video: 28.2 → 30.8 MB peak).
    /// `stream`: that first frame's RGB stream is also handed over as it is made (declared as 3
    /// channels first); nothing is for any other form.
    private func pack(_ rgba: UnsafeRawBufferPointer, index: Int, size: RenderSize, streaming stream: FrameStream?) -> ScaledFrame {
        let deflate: (UnsafeRawBufferPointer) -> [UInt8] = index == 0
            ? { Zlib.compressInHalves($0, level: level) } : { Zlib.compress($0, level: level) }
        // The first frame's RGB is made by the two compressing threads as they go (looked at
        // first: they would give up only at a pixel that is not opaque, having deflated the
        // pixels before it for nothing).
        if index == 0 && compress && Self.allOpaque(rgba) {
            stream?.declare(channels: 3)
            if let packed = Zlib.compressOpaqueRGBInHalves(rgba, level: level, publish: stream.map { $0.append }) {
                return ScaledFrame(index: index, size: size, pixels: [], payload: packed, channels: 3)
            }
        }
        if let rgb = Self.opaqueRGB(rgba) {
            let packed = compress ? rgb.withUnsafeBytes { deflate($0) } : rgb
            return ScaledFrame(index: index, size: size, pixels: [], payload: packed, channels: 3)
        }
        let packed = compress ? deflate(rgba) : Array(rgba)
        return ScaledFrame(index: index, size: size, pixels: [], payload: packed, channels: 4)
    }

    /// The RGB of `rgba` if every pixel is opaque, else nil (the copy stops at the first pixel
    /// that is not, so a frame with alpha costs at most one pass).
    package static func opaqueRGB(_ rgba: UnsafeRawBufferPointer) -> [UInt8]? {
        let n = rgba.count / 4
        guard n > 0, let base = rgba.baseAddress else { return nil }
        let src = base.assumingMemoryBound(to: UInt8.self)
        var opaque = true
        let rgb = [UInt8](unsafeUninitializedCapacity: n * 3) { dst, count in
            let d = dst.baseAddress!
            var s = src, o = d
            for _ in 0..<n {
                if s[3] != 255 { opaque = false; break }
                o[0] = s[0]; o[1] = s[1]; o[2] = s[2]
                s += 4; o += 3
            }
            count = opaque ? n * 3 : 0
        }
        return opaque ? rgb : nil
    }

    /// Whether every pixel of `rgba` is opaque (read 8 bytes at a time: 0.3 ms at 1280×720).
    package static func allOpaque(_ rgba: UnsafeRawBufferPointer) -> Bool {
        guard let base = rgba.baseAddress else { return true }
        let n = rgba.count / 4 * 4
        let alpha: UInt64 = 0xFF00_0000_FF00_0000
        var all = UInt64.max, i = 0
        while i + 8 <= n { all &= base.loadUnaligned(fromByteOffset: i, as: UInt64.self) | ~alpha; i += 8 }
        let last: UInt8 = i < n ? base.load(fromByteOffset: i + 3, as: UInt8.self) : 255
        return all == .max && last == 255
    }

    /// The frame goes to kitty with its alpha (kitty composites it): no `--bg` blending here.
    private var keepsAlpha: Bool {
        switch background {
        case .color, .checker: false
        case .terminal, .terminalBlend: true
        }
    }

    /// Blends every pixel that is not opaque over `under(x, y)` (sRGB, as the cell renderer).
    private static func flatten(_ pixels: inout [UInt8], width: Int,
                                under: (Int, Int) -> (UInt8, UInt8, UInt8)) {
        pixels.withUnsafeMutableBufferPointer { px in
            for i in stride(from: 0, to: px.count, by: 4) where px[i + 3] != 255 {
                let n = i / 4
                let (r, g, b) = under(n % width, n / width)
                let a = px[i + 3]
                px[i] = BackgroundMode.over(px[i], r, a)
                px[i + 1] = BackgroundMode.over(px[i + 1], g, a)
                px[i + 2] = BackgroundMode.over(px[i + 2], b, a)
                px[i + 3] = 255
            }
        }
    }

    /// The RGBA a payload of `channels` bytes a pixel carries (RGB made opaque), or nil if it
    /// is not one of ours (tests; fallback to cells).
    package static func pixels(of payload: [UInt8], size: RenderSize, channels: Int = 4,
                               compressed: Bool = true) -> [UInt8]? {
        let count = size.width * size.height * channels
        let data = compressed ? Zlib.decompress(payload, limit: count) : payload
        guard let data, data.count == count, channels == 3 || channels == 4 else { return nil }
        return channels == 4 ? data : rgba(fromRGB: data)
    }

    /// RGB expanded to opaque RGBA.
    package static func rgba(fromRGB rgb: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 255, count: rgb.count / 3 * 4)
        for i in 0..<(rgb.count / 3) {
            out[i * 4] = rgb[i * 3]; out[i * 4 + 1] = rgb[i * 3 + 1]; out[i * 4 + 2] = rgb[i * 3 + 2]
        }
        return out
    }
}

/// The cells kitty stretches a placement over (`c=` columns, `r=` rows). Both are always given:
/// kitty 0.26 does not derive a missing one from the aspect ratio (it takes the image's own
/// pixel height then). So the side that does not fill the box is rounded to the nearest whole
/// cell: the shape is off by at most half a cell (0.7 % for 640×360 filled to 120×40 cells of
/// 10×20 pixels).
package struct KittyCells: Sendable, Equatable {
    package var columns: Int
    package var rows: Int
    package init(columns: Int, rows: Int) { self.columns = columns; self.rows = rows }

    /// The cells for `layout`, or nil when the frames are shown at their own size.
    package init?(_ layout: RenderLayout) {
        guard layout.terminalScales else { return nil }
        let cw = max(1, layout.cell.width), ch = max(1, layout.cell.height)
        columns = max(1, (layout.shown.width * 2 + cw) / (2 * cw))
        rows = max(1, (layout.shown.height * 2 + ch) / (2 * ch))
    }

    var keys: String { ",c=\(columns),r=\(rows)" }
}
