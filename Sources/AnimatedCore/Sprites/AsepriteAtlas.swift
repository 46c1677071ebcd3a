/// Aseprite's additions to the TexturePacker layout: `meta.frameTags`
/// (`[{"name", "from", "to", "direction"}]`, directions forward, reverse, pingpong,
/// pingpong_reverse). Per-frame `duration` is read with the frame record.
enum AsepriteAtlas {
    static func tags(_ value: JSONValue?, frameCount: Int) throws(AnimatedError) -> [AtlasTag] {
        guard let value else { return [] }
        guard let list = value.array else {
            throw .invalid("atlas: meta.frameTags is \(value.kindName), expected an array")
        }
        var tags: [AtlasTag] = []
        for (i, v) in list.enumerated() {
            let what = "meta.frameTags[\(i)]"
            guard let o = v.object else { throw .invalid("atlas: \(what) is \(v.kindName), expected an object") }
            guard let name = o["name"]?.string else { throw .invalid("atlas: \(what).name is missing or not a string") }
            let from = try AtlasParser.int(o["from"], "\(what).from", min: 0)
            let to = try AtlasParser.int(o["to"], "\(what).to", min: 0)
            guard from <= to, to < frameCount else {
                throw .invalid("atlas: tag \(JSONWriter.quote(name)) spans frames \(from)-\(to), but there are \(frameCount) frames")
            }
            var direction = AtlasTag.Direction.forward
            if let d = o["direction"] {
                guard let s = d.string, let dir = AtlasTag.Direction(rawValue: s) else {
                    let allowed = AtlasTag.Direction.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .invalid("atlas: tag \(JSONWriter.quote(name)) has direction \(d.string.map(JSONWriter.quote) ?? d.kindName), expected one of \(allowed)")
                }
                direction = dir
            }
            tags.append(AtlasTag(name: name, from: from, to: to, direction: direction))
        }
        return tags
    }
}
