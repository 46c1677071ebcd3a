/// A few ISO-BMFF boxes of an AVIF, read by animplay where libavif 0.11 does not say what it
/// found: the edit list (`AVIFEditList`) and whether the primary item is a grid. Bounds are
/// checked against the buffer; a box that does not fit ends the walk (fuzzed with the decoder).
enum AVIFBoxes {
    struct Box { var type: String; var body: Range<Int> }

    /// The boxes directly inside `range` (stops at the first that does not fit).
    static func boxes(_ f: UnsafeRawBufferPointer, in range: Range<Int>) -> [Box] {
        var out: [Box] = []
        var o = range.lowerBound
        while o + 8 <= range.upperBound, out.count < 1024 {
            var size = be(f, o, 4)
            var header = 8
            if size == 1 {
                guard o + 16 <= range.upperBound else { break }
                size = be(f, o + 8, 8)
                header = 16
            } else if size == 0 {
                size = UInt64(range.upperBound - o)
            }
            guard size >= UInt64(header), size <= UInt64(range.upperBound - o) else { break }
            let type = String(decoding: f[(o + 4)..<(o + 8)], as: UTF8.self)
            out.append(Box(type: type, body: (o + header)..<(o + Int(size))))
            o += Int(size)
        }
        return out
    }

    static func be(_ f: UnsafeRawBufferPointer, _ at: Int, _ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<n { v = v << 8 | UInt64(f[at + i]) }
        return v
    }

    /// Whether the primary item (`meta` → `pitm`) is a `grid` item (`iinf` → `infe`, version 2
    /// or 3). libavif 0.11 then decodes every cell with its own dav1d instance and copies the
    /// cells into a full-size image, so the full-size planes are held twice.
    static func primaryIsGrid(_ f: UnsafeRawBufferPointer) -> Bool {
        guard let meta = boxes(f, in: 0..<f.count).first(where: { $0.type == "meta" }), meta.body.count >= 4 else { return false }
        let children = boxes(f, in: (meta.body.lowerBound + 4)..<meta.body.upperBound)   // a full box
        guard let pitm = children.first(where: { $0.type == "pitm" }), pitm.body.count >= 6,
              let iinf = children.first(where: { $0.type == "iinf" }), iinf.body.count >= 6 else { return false }
        let primary = f[pitm.body.lowerBound] == 0 ? be(f, pitm.body.lowerBound + 4, 2)
            : pitm.body.count >= 8 ? be(f, pitm.body.lowerBound + 4, 4) : 0
        let entries = (iinf.body.lowerBound + (f[iinf.body.lowerBound] == 0 ? 6 : 8))..<iinf.body.upperBound
        guard entries.lowerBound <= entries.upperBound else { return false }
        for infe in boxes(f, in: entries) where infe.type == "infe" {
            let o = infe.body.lowerBound, version = f[o]
            guard version >= 2 else { continue }
            let idBytes = version == 2 ? 2 : 4
            guard infe.body.count >= 4 + idBytes + 2 + 4 else { continue }
            if be(f, o + 4, idBytes) == primary {
                return f[(o + 4 + idBytes + 2)..<(o + 4 + idBytes + 6)].elementsEqual("grid".utf8)
            }
        }
        return false
    }
}
