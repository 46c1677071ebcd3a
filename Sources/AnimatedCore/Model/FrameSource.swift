/// Where a frame of a sprite sheet or a frame sequence comes from (reported by `info`).
package struct FrameSource: Sendable, Equatable {
    /// The area read from the sheet, clipped to it (as stored: rotated frames are turned).
    package var sheetRect: FrameRect?
    /// Stored rotated 90° clockwise in the sheet (TexturePacker).
    package var rotated: Bool
    /// The image file of a frame-sequence frame.
    package var file: String?
    /// The frame of that file, when it is an animation (each of its frames is one of the sequence).
    package var fileFrame: Int?

    /// Where a frame comes from.
    package init(sheetRect: FrameRect? = nil, rotated: Bool = false, file: String? = nil, fileFrame: Int? = nil) {
        self.sheetRect = sheetRect; self.rotated = rotated; self.file = file; self.fileFrame = fileFrame
    }
}

/// Frame operations for sources whose frames are whole pictures (sheets, sequences): every
/// frame is drawn with SOURCE, and a frame is disposed to background when the frame after it
/// does not cover the canvas (trimmed or smaller frames), so each frame appears on its own
/// and every frame is a keyframe.
enum IndependentFrames {
    static func infos(placements: [FrameRect], delaysMs: [Double], sources: [FrameSource],
                      width: Int, height: Int) -> [FrameInfo] {
        let n = placements.count
        var out: [FrameInfo] = []
        out.reserveCapacity(n)
        for k in 0..<n {
            let next = placements[(k + 1) % n]
            let dispose: DisposeOp = next.covers(width: width, height: height) ? .none : .background
            var f = FrameInfo(rect: placements[k], delayMs: delaysMs[k], dispose: dispose, blend: .source, hasAlpha: true)
            f.source = sources[k]
            out.append(f)
        }
        return out
    }
}
