/// TexturePacker's frame record, which Aseprite also writes:
/// `{"frame":{x,y,w,h}, "rotated":b, "trimmed":b, "spriteSourceSize":{x,y,w,h}, "sourceSize":{w,h}}`.
///
/// `frame.w/h` is the sprite's own size; a rotated sprite is stored turned 90° clockwise, so it
/// occupies h×w pixels of the sheet. A trimmed sprite's pixels go at `spriteSourceSize.x/y`
/// inside a `sourceSize` image (trimming removed the transparent border).
enum TexturePackerAtlas {
    static func frame(_ value: JSONValue, label: String) throws(AnimatedError) -> AtlasFrame {
        guard let o = value.object else { throw .invalid("atlas: \(label) is \(value.kindName), expected an object") }
        guard let r = try AtlasParser.optionalObject(o["frame"], "\(label).frame") else {
            throw .invalid("atlas: \(label) has no \"frame\" rect")
        }
        let rect = FrameRect(x: try AtlasParser.int(r["x"], "\(label).frame.x", min: 0),
                             y: try AtlasParser.int(r["y"], "\(label).frame.y", min: 0),
                             width: try AtlasParser.int(r["w"], "\(label).frame.w", min: 1),
                             height: try AtlasParser.int(r["h"], "\(label).frame.h", min: 1))
        let rotated = try AtlasParser.bool(o["rotated"], "\(label).rotated") ?? false
        let trimmed = try AtlasParser.bool(o["trimmed"], "\(label).trimmed")
        var f = AtlasFrame(name: nil, frame: rect, rotated: rotated)
        // As PixiJS reads it: the source size and offset apply unless trimmed is explicitly false.
        if trimmed != false {
            if let s = try AtlasParser.optionalObject(o["sourceSize"], "\(label).sourceSize") {
                f.sourceWidth = try AtlasParser.int(s["w"], "\(label).sourceSize.w", min: 1)
                f.sourceHeight = try AtlasParser.int(s["h"], "\(label).sourceSize.h", min: 1)
            }
            if let s = try AtlasParser.optionalObject(o["spriteSourceSize"], "\(label).spriteSourceSize") {
                f.offsetX = try AtlasParser.int(s["x"], "\(label).spriteSourceSize.x", min: 0)
                f.offsetY = try AtlasParser.int(s["y"], "\(label).spriteSourceSize.y", min: 0)
            }
        }
        if let d = o["duration"] {
            guard let ms = d.number, ms >= 0, ms <= 3_600_000 else {
                throw .invalid("atlas: \(label).duration must be a number of milliseconds from 0 to 3600000")
            }
            f.durationMs = ms
        }
        return f
    }
}
