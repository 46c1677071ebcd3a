/// Reads atlas JSON: TexturePacker (hash or array `frames`) and Aseprite (the same frame records
/// plus `duration` and `meta.frameTags`). Strict about the fields it uses, silent about others.
public enum AtlasParser {
    /// Largest atlas file read.
    public static let maxBytes = 32 << 20
    /// Largest number of frames accepted.
    public static let maxFrames = 1 << 20
    /// Coordinates and sizes beyond this are rejected (keeps all arithmetic far from overflow).
    static let maxCoordinate = 1 << 24

    /// Parses atlas JSON bytes. This is the fuzzing entry point: any input returns an atlas or
    /// throws a one-line `AnimatedError`.
    public static func parse(_ bytes: [UInt8]) throws(AnimatedError) -> SpriteAtlas {
        let doc = try JSONParser.parse(bytes, limits: .init(maxBytes: maxBytes, maxDepth: 32))
        guard let root = doc.object else { throw .invalid("atlas: the document is \(doc.kindName), expected an object") }
        guard let framesValue = root["frames"] else {
            if root["textures"] != nil { throw .unsupportedFormat("atlas: multi-texture atlases are not supported") }
            throw .invalid("atlas: no \"frames\"")
        }
        var records: [(name: String?, value: JSONValue)] = []
        switch framesValue {
        case .object(let hash):                              // hash variant: name -> record
            records = hash.members.map { ($0.key, $0.value) }
        case .array(let list):                               // array variant: records with "filename"
            for (i, v) in list.enumerated() {
                guard let o = v.object else { throw .invalid("atlas: frames[\(i)] is \(v.kindName), expected an object") }
                var name: String?
                if let f = o["filename"] {
                    guard let s = f.string else { throw .invalid("atlas: frames[\(i)].filename is \(f.kindName), expected a string") }
                    name = s
                }
                records.append((name, v))
            }
        default:
            throw .invalid("atlas: \"frames\" is \(framesValue.kindName), expected an object or an array")
        }
        guard !records.isEmpty else { throw .invalid("atlas: no frames") }
        guard records.count <= maxFrames else { throw .limitExceeded("atlas: \(records.count) frames exceed \(maxFrames)") }

        var frames: [AtlasFrame] = []
        frames.reserveCapacity(records.count)
        for (i, r) in records.enumerated() {
            var f = try TexturePackerAtlas.frame(r.value, label: label(i, r.name))
            f.name = r.name
            frames.append(f)
        }
        let meta = try optionalObject(root["meta"], "meta")
        var imageName: String?
        if let v = meta?["image"] {
            guard let s = v.string else { throw .invalid("atlas: meta.image is \(v.kindName), expected a string") }
            imageName = s
        }
        let tags = try AsepriteAtlas.tags(meta?["frameTags"], frameCount: frames.count)
        let app = meta?["app"]?.string?.lowercased() ?? ""
        let isAseprite = app.contains("aseprite") || !tags.isEmpty || frames.contains { $0.durationMs != nil }
        return SpriteAtlas(exporter: isAseprite ? .aseprite : .texturePacker, frames: frames, tags: tags,
                           imageName: imageName)
    }

    /// Reads and parses an atlas file (size checked before reading). A FIFO, process
    /// substitution or device is read as a stream, as images are (`--atlas <(jq … atlas.json)`
    /// was refused as "not a regular file"), to its end or one byte past the limit.
    public static func load(path: String) throws(AnimatedError) -> SpriteAtlas {
        if let spool = try SpoolReader.openStream(path: path, maxBytes: maxBytes + 1) {
            let p = spool.waitUntilFinished()
            guard p.count <= maxBytes else { throw .limitExceeded("atlas of more than \(maxBytes) bytes") }
            if let failure = p.failure { throw .unreadable(failure) }
            return try parse(ByteSource(spool: spool).allBytes())
        }
        let src = try ByteSource(path: path)
        guard src.count <= maxBytes else {
            throw .limitExceeded("atlas of \(src.count) bytes exceeds \(maxBytes) bytes")
        }
        return try parse(src.allBytes())
    }

    static func label(_ index: Int, _ name: String?) -> String {
        name.map { "frame \(JSONWriter.quote($0))" } ?? "frames[\(index)]"
    }

    // MARK: - Typed field access with one-line messages

    static func optionalObject(_ v: JSONValue?, _ what: String) throws(AnimatedError) -> JSONObject? {
        guard let v else { return nil }
        guard let o = v.object else { throw .invalid("atlas: \(what) is \(v.kindName), expected an object") }
        return o
    }

    /// A whole number within ±2^24 (TexturePacker writes integers; 3.0 is accepted).
    static func int(_ v: JSONValue?, _ what: String, min lower: Int) throws(AnimatedError) -> Int {
        guard let v else { throw .invalid("atlas: \(what) is missing") }
        guard let d = v.number else { throw .invalid("atlas: \(what) is \(v.kindName), expected a number") }
        guard d == d.rounded(), abs(d) <= Double(maxCoordinate) else {
            throw .invalid("atlas: \(what) is \(JSONWriter.number(d)), expected a whole number up to \(maxCoordinate)")
        }
        let i = Int(d)
        guard i >= lower else { throw .invalid("atlas: \(what) is \(i), expected at least \(lower)") }
        return i
    }

    static func bool(_ v: JSONValue?, _ what: String) throws(AnimatedError) -> Bool? {
        guard let v else { return nil }
        guard let b = v.bool else { throw .invalid("atlas: \(what) is \(v.kindName), expected true or false") }
        return b
    }
}
