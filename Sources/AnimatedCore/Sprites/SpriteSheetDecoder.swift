/// A sprite sheet as an animation (YYSpriteSheetImage): every frame is a rect of one still
/// image. The sheet is decoded once, on the first frame asked for, and shared by all frames:
/// memory is the sheet plus the output canvas.
package final class SpriteSheetDecoder: AnimationDecoder {
    /// One frame per cell or atlas frame.
    package let info: AnimationInfo
    /// Where each frame is cut from.
    package let layout: SpriteLayout
    /// The decoded sheet (nil until the first `blend`, when opened from a file).
    private var sheet: Canvas?
    /// The sheet's codec, kept from `init` (headers only) until the sheet is decoded.
    private var sheetDecoder: (any AnimationDecoder)?
    /// Why the sheet did not decode fully (reported for every frame; what decoded is shown).
    private var sheetProblem: AnimatedError?
    /// One output row of a rotated frame, un-rotated before it is blended.
    private let rowScratch: UnsafeMutableBufferPointer<UInt8>

    /// A sheet already decoded (tests, or a caller that has the pixels).
    package convenience init(sheet: Canvas, spec: SpriteSheetSpec, options: DecodeOptions = DecodeOptions()) throws(AnimatedError) {
        let layout = try spec.resolve(sheetWidth: sheet.width, sheetHeight: sheet.height, limits: options.limits)
        self.init(layout: layout, sheet: sheet, decoder: nil, warnings: [])
    }

    /// Opens the sheet at `path` (a still PNG, GIF or WebP) reading only its headers.
    package convenience init(path: String, spec: SpriteSheetSpec, options: DecodeOptions = DecodeOptions()) throws(AnimatedError) {
        try self.init(sheet: AnimationLoader.open(path: path, options: options), spec: spec, options: options)
    }

    /// The sheet an opened decoder reads (headers read only): from a file, a stream or a URL.
    package convenience init(sheet decoder: any AnimationDecoder, spec: SpriteSheetSpec,
                             options: DecodeOptions = DecodeOptions()) throws(AnimatedError) {
        let sheetInfo = decoder.info
        let layout = try spec.resolve(sheetWidth: sheetInfo.width, sheetHeight: sheetInfo.height, limits: options.limits)
        var warnings = sheetInfo.warnings.map { "sheet: " + $0 }
        if sheetInfo.frameCount > 1 {
            warnings.append("the sheet is animated (\(sheetInfo.frameCount) frames); its first frame is used")
        }
        self.init(layout: layout, sheet: nil, decoder: decoder, warnings: warnings)
    }

    private init(layout: SpriteLayout, sheet: Canvas?, decoder: (any AnimationDecoder)?, warnings: [String]) {
        self.layout = layout
        self.sheet = sheet
        self.sheetDecoder = decoder
        let sources = layout.frames.map { FrameSource(sheetRect: $0.sheetRect, rotated: $0.rotated) }
        let frames = IndependentFrames.infos(placements: layout.frames.map(\.placement),
                                             delaysMs: layout.frames.map(\.delayMs), sources: sources,
                                             width: layout.width, height: layout.height)
        // Delays are the user's or the artist's: no browser minimum applies.
        info = AnimationInfo(format: .spriteSheet, width: layout.width, height: layout.height, frames: frames,
                             plays: 0, warnings: warnings + layout.warnings,
                             timing: TimingPolicy(browserMinimumDelay: false))
        let rotatedWidth = layout.frames.lazy.filter(\.rotated).map(\.placement.width).max() ?? 0
        rowScratch = .allocate(capacity: max(rotatedWidth, 1) * 4)
        rowScratch.initialize(repeating: 0)
    }

    deinit { rowScratch.deallocate() }

    /// Draws frame `index`, cut from the sheet, onto `canvas`.
    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        let sheet = try decodedSheet()
        let f = layout.frames[index]
        let base = UnsafePointer(sheet.pixels.baseAddress!)
        let stride = sheet.rowBytes
        let a = f.sheetRect
        if !f.rotated {
            Blend.image(base + a.y * stride + a.x * 4, width: a.width, height: a.height, srcStride: stride,
                        at: f.placement.x, f.placement.y, onto: canvas, op: .source)
        } else {
            // Output row r is sheet column (right edge - r), read top to bottom.
            let row = rowScratch.baseAddress!
            let w = f.placement.width
            for r in 0..<f.placement.height {
                var s = base + a.y * stride + (a.x + a.width - 1 - r) * 4
                var d = row
                for _ in 0..<w {
                    d.update(from: s, count: 4)
                    s += stride; d += 4
                }
                Blend.image(UnsafePointer(row), width: w, height: 1, srcStride: w * 4,
                            at: f.placement.x, f.placement.y + r, onto: canvas, op: .source)
            }
        }
        if let sheetProblem { throw sheetProblem }
    }

    /// Decodes the sheet's first frame once. A damaged sheet keeps what decoded.
    private func decodedSheet() throws(AnimatedError) -> Canvas {
        if let sheet { return sheet }
        guard let decoder = sheetDecoder else { throw .invalid("the sheet is not available") }
        let canvas = Canvas(width: decoder.info.width, height: decoder.info.height)
        do {
            try decoder.blend(frame: 0, onto: canvas)
        } catch {
            sheetProblem = error.prefixed("sheet: ")
        }
        sheet = canvas
        sheetDecoder = nil                 // closes the sheet file
        return canvas
    }
}
