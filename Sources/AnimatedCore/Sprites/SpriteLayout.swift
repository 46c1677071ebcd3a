/// One frame of a sprite sheet: which pixels of the sheet, and where they go on the output canvas.
package struct SpriteFrame: Sendable, Equatable {
    /// The sheet area read, already clipped to the sheet. A rotated frame's area holds the
    /// sprite turned 90° clockwise (`placement` is `sheetRect` with width and height swapped).
    package var sheetRect: FrameRect
    /// True when the sheet stores it rotated 90° clockwise.
    package var rotated: Bool
    /// Where the (un-rotated) pixels go on the output canvas.
    package var placement: FrameRect
    /// How long it is shown, in milliseconds.
    package var delayMs: Double

    /// A frame cut from `sheetRect`, drawn at `placement`.
    package init(sheetRect: FrameRect, rotated: Bool = false, placement: FrameRect, delayMs: Double) {
        self.sheetRect = sheetRect; self.rotated = rotated; self.placement = placement; self.delayMs = delayMs
    }
}

/// The frames of a sheet resolved against the sheet's size: output canvas, rects, delays.
package struct SpriteLayout: Sendable, Equatable {
    /// Canvas width of the animation.
    package var width: Int
    /// Canvas height of the animation.
    package var height: Int
    /// The frames, in play order.
    package var frames: [SpriteFrame]
    /// Problems that did not stop it (for `info`).
    package var warnings: [String]
}

/// How to cut a sheet into frames: a grid or an atlas, how many frames, and timing.
public struct SpriteSheetSpec: Sendable {
    /// A grid of equal cells, or an atlas.
    public enum Layout: Sendable {
        /// Equal cells in rows and columns.
        case grid(SpriteGrid)
        /// The atlas's frames in order, or one tag's frames in the tag's direction.
        case atlas(SpriteAtlas, tag: String?)
    }
    /// The delay when neither the atlas nor the caller gives one.
    public static let defaultDelayMs = 100.0      // 10 fps

    /// How the sheet is cut.
    public var layout: Layout
    /// Keep only the first N frames (sheets often end with empty cells).
    public var frameLimit: Int?
    /// Delay of every frame; nil = the atlas's durations where it has them, else 100 ms.
    public var delayMs: Double?

    /// A sheet cut by `layout`.
    public init(layout: Layout, frameLimit: Int? = nil, delayMs: Double? = nil) {
        self.layout = layout; self.frameLimit = frameLimit; self.delayMs = delayMs
    }

    /// Resolves the frames against a `sheetWidth`×`sheetHeight` sheet. Atlas rects are clipped
    /// to the sheet (YYSpriteSheetImage's rule); a rect entirely outside it is an error.
    package func resolve(sheetWidth: Int, sheetHeight: Int,
                        limits: DecodeLimits = .default) throws(AnimatedError) -> SpriteLayout {
        var layout: SpriteLayout
        switch self.layout {
        case .grid(let grid):
            let cells = try grid.cells(sheetWidth: sheetWidth, sheetHeight: sheetHeight)
            let n = try Self.count(frameLimit, available: cells.count, unit: "cells in the \(grid.columns)x\(grid.rows) grid")
            let delay = delayMs ?? Self.defaultDelayMs
            let w = cells[0].width, h = cells[0].height
            layout = SpriteLayout(width: w, height: h, frames: cells[0..<n].map {
                SpriteFrame(sheetRect: $0, placement: FrameRect(x: 0, y: 0, width: w, height: h), delayMs: delay)
            }, warnings: [])
        case .atlas(let atlas, let tag):
            let order = try atlas.playOrder(tag: tag)
            let n = try Self.count(frameLimit, available: order.count, unit: tag == nil ? "frames in the atlas" : "frames in tag \(JSONWriter.quote(tag!))")
            layout = try Self.atlasLayout(atlas, order: Array(order[0..<n]), sheetWidth: sheetWidth,
                                          sheetHeight: sheetHeight, delayMs: delayMs)
        }
        guard layout.frames.count <= limits.maxFrames else {
            throw .limitExceeded("\(layout.frames.count) frames exceed the limit of \(limits.maxFrames)")
        }
        try limits.check(width: layout.width, height: layout.height, workingCopies: 2)
        return layout
    }

    private static func count(_ limit: Int?, available: Int, unit: String) throws(AnimatedError) -> Int {
        guard let limit else { return available }
        guard limit >= 1 else { throw .invalid("frame count \(limit) must be at least 1") }
        guard limit <= available else { throw .invalid("\(limit) frames asked for, but there are \(available) \(unit)") }
        return limit
    }

    /// Output canvas = the largest `sourceSize`; each frame's source image is centred on it
    /// (usually they are all the same size) and its pixels go at `spriteSourceSize.x/y` inside.
    private static func atlasLayout(_ atlas: SpriteAtlas, order: [Int], sheetWidth: Int, sheetHeight: Int,
                                    delayMs: Double?) throws(AnimatedError) -> SpriteLayout {
        var width = 0, height = 0
        for i in order {
            width = max(width, atlas.frames[i].sourceWidth); height = max(height, atlas.frames[i].sourceHeight)
        }
        var frames: [SpriteFrame] = []
        var clipped: [String] = []
        frames.reserveCapacity(order.count)
        for i in order {
            let f = atlas.frames[i]
            let name = AtlasParser.label(i, f.name)
            let stored = f.sheetRect
            let area = stored.clipped(toWidth: sheetWidth, height: sheetHeight)
            guard !area.isEmpty else {
                throw .invalid("atlas \(name): rect \(stored) lies outside the \(sheetWidth)x\(sheetHeight) sheet")
            }
            if area != stored { clipped.append("\(name) \(stored)") }
            // Pixels cut off by clipping are cut off the placement too.
            let dx = area.x - stored.x, dy = area.y - stored.y
            let ox = (width - f.sourceWidth) / 2 + f.offsetX, oy = (height - f.sourceHeight) / 2 + f.offsetY
            let placement = f.rotated
                // Sheet column c holds sprite row (h-1-c); sheet row r holds sprite column r.
                ? FrameRect(x: ox + dy, y: oy + f.frame.height - dx - area.width, width: area.height, height: area.width)
                : FrameRect(x: ox + dx, y: oy + dy, width: area.width, height: area.height)
            frames.append(SpriteFrame(sheetRect: area, rotated: f.rotated, placement: placement,
                                      delayMs: delayMs ?? f.durationMs ?? defaultDelayMs))
        }
        var warnings: [String] = []
        if !clipped.isEmpty {
            let shown = clipped.prefix(3).joined(separator: ", ") + (clipped.count > 3 ? ", ..." : "")
            warnings.append("\(clipped.count) atlas rects extend past the \(sheetWidth)x\(sheetHeight) sheet and were clipped: \(shown)")
        }
        return SpriteLayout(width: width, height: height, frames: frames, warnings: warnings)
    }
}
