/// Per-frame content rects (and, from Aseprite, durations and tags) read from an atlas JSON file.
/// Both exporters write the same frame record; Aseprite adds `duration` and `meta.frameTags`.
public struct SpriteAtlas: Sendable, Equatable {
    /// The tool whose JSON the atlas came from.
    public enum Exporter: String, Sendable { case texturePacker = "TexturePacker", aseprite = "Aseprite" }

    /// The tool whose JSON this is.
    public var exporter: Exporter
    /// Frames in document order (hash keys in the order written, or the array order).
    public var frames: [AtlasFrame]
    /// Named frame ranges (Aseprite tags).
    public var tags: [AtlasTag]
    /// `meta.image`: the sheet the exporter wrote, if named.
    public var imageName: String?

    /// An atlas.
    public init(exporter: Exporter, frames: [AtlasFrame], tags: [AtlasTag] = [], imageName: String? = nil) {
        self.exporter = exporter; self.frames = frames; self.tags = tags; self.imageName = imageName
    }

    /// Indices into `frames` in play order: every frame forward, or the frames of the first tag
    /// named `tag` in its direction. An unknown tag is an error listing the tags.
    package func playOrder(tag: String?) throws(AnimatedError) -> [Int] {
        guard let tag else { return Array(frames.indices) }
        guard let t = tags.first(where: { $0.name == tag }) else {
            let names = tags.map { JSONWriter.quote($0.name) }.joined(separator: ", ")
            throw .invalid(tags.isEmpty ? "no tag \(JSONWriter.quote(tag)): the atlas has no tags"
                                        : "no tag \(JSONWriter.quote(tag)); the atlas has \(names)")
        }
        return t.playOrder
    }
}

/// One frame record (TexturePacker's `frame`/`rotated`/`trimmed`/`spriteSourceSize`/`sourceSize`).
public struct AtlasFrame: Sendable, Equatable {
    /// The hash key or the array entry's `filename`.
    public var name: String?
    /// `frame`: position in the sheet and the sprite's (un-rotated) size.
    public var frame: FrameRect
    /// Stored rotated 90° clockwise: the sheet area is `frame.height` wide, `frame.width` tall.
    public var rotated: Bool
    /// Where the sheet pixels go inside the untrimmed source image (`spriteSourceSize.x/y`).
    public var offsetX: Int
    /// Vertical offset of the trimmed rect in the untrimmed frame.
    public var offsetY: Int
    /// The untrimmed source image size (`sourceSize`).
    public var sourceWidth: Int
    /// Height of the untrimmed frame.
    public var sourceHeight: Int
    /// Aseprite's `duration`, in milliseconds.
    public var durationMs: Double?

    /// An atlas frame.
    public init(name: String? = nil, frame: FrameRect, rotated: Bool = false, offsetX: Int = 0, offsetY: Int = 0,
                sourceWidth: Int? = nil, sourceHeight: Int? = nil, durationMs: Double? = nil) {
        self.name = name; self.frame = frame; self.rotated = rotated
        self.offsetX = offsetX; self.offsetY = offsetY
        self.sourceWidth = sourceWidth ?? frame.width; self.sourceHeight = sourceHeight ?? frame.height
        self.durationMs = durationMs
    }

    /// The area of the sheet holding the pixels (width and height swapped when rotated).
    package var sheetRect: FrameRect {
        rotated ? FrameRect(x: frame.x, y: frame.y, width: frame.height, height: frame.width) : frame
    }
}

/// An Aseprite tag (`meta.frameTags`): a range of frames and the direction to play it.
public struct AtlasTag: Sendable, Equatable {
    /// The order a tag plays its frames in.
    public enum Direction: String, Sendable, CaseIterable {
        case forward, reverse, pingpong
        case pingpongReverse = "pingpong_reverse"
    }
    /// The tag's name.
    public var name: String
    /// First frame (inclusive).
    public var from: Int
    /// Last frame (inclusive).
    public var to: Int
    /// Play order.
    public var direction: Direction

    /// A tag over frames `from` to `to`.
    public init(name: String, from: Int, to: Int, direction: Direction = .forward) {
        self.name = name; self.from = from; self.to = to; self.direction = direction
    }

    /// Frame indices of one play. Ping-pong goes there and back without repeating the end
    /// frames (a, b, c, b), as Aseprite plays it.
    package var playOrder: [Int] {
        let up = Array(from...to)
        switch direction {
        case .forward: return up
        case .reverse: return up.reversed()
        case .pingpong: return up + up.dropFirst().dropLast().reversed()
        case .pingpongReverse: return up.reversed() + up.dropFirst().dropLast()
        }
    }
}
