/// Names what is wrong with a WebP container that libwebpdemux rejected (it only says "error").
/// Walks the RIFF chunks the way the container spec lays them out; used on failure only.
enum WebPContainerCheck {
    static func problem(in b: UnsafeRawBufferPointer) -> String {
        func le(_ at: Int, _ n: Int) -> Int {
            var v = 0
            for i in stride(from: n - 1, through: 0, by: -1) { v = v << 8 | Int(b[at + i]) }
            return v
        }
        func tag(_ at: Int) -> String {
            String(decoding: (0..<4).map { c -> UInt8 in
                let ch = b[at + c]; return (0x20...0x7E).contains(ch) ? ch : 0x3F
            }, as: UTF8.self)
        }
        guard b.count >= 12, tag(0) == "RIFF", tag(8) == "WEBP" else { return "not a RIFF WEBP file" }
        let riffEnd = 8 + le(4, 4)
        guard riffEnd >= 20 else { return "RIFF size \(riffEnd - 8) is too small" }
        let end = min(riffEnd, b.count)
        guard end >= 20 else { return "file truncated inside the header" }

        var canvas: (w: Int, h: Int)?
        var sawAnim = false, frame = 0, at = 12
        while at + 8 <= end {
            let name = tag(at), size = le(at + 4, 4)
            let body = at + 8
            if body + size > end {
                return end < riffEnd && frame == 0 ? "file truncated before the first complete frame"
                                                   : "chunk '\(name)' at offset \(at) runs past the end of the RIFF data"
            }
            switch name {
            case "VP8X":
                guard at == 12 else { return "VP8X chunk is not the first chunk" }
                guard size >= 10 else { return "VP8X chunk is too short" }
                canvas = (1 + le(body + 4, 3), 1 + le(body + 7, 3))
            case "ANIM":
                sawAnim = true
            case "ANMF":
                guard size >= 16 else { return "ANMF chunk of frame \(frame) is too short" }
                guard sawAnim else { return "ANMF chunk before the ANIM chunk" }
                let x = 2 * le(body, 3), y = 2 * le(body + 3, 3)
                let w = 1 + le(body + 6, 3), h = 1 + le(body + 9, 3)
                if let c = canvas, x + w > c.w || y + h > c.h {
                    return "frame \(frame) (\(w)x\(h)+\(x)+\(y)) extends outside the \(c.w)x\(c.h) canvas"
                }
                frame += 1
            default:
                break
            }
            at = body + size + (size & 1)
        }
        if end < riffEnd && frame == 0 { return "file truncated before the first complete frame" }
        return "malformed WebP container"
    }
}
