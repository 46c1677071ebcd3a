import CWebP

/// Names what is wrong with a WebP container that libwebpdemux rejected (it only says "error").
/// Walks the RIFF chunks as the container spec lays them out; used on failure only, so it favours
/// clear messages over speed.
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
        /// Size of the VP8/VP8L bitstream whose chunk starts at `at`, or nil if its header is bad.
        func bitstreamSize(_ at: Int, _ end: Int) -> (w: Int, h: Int)? {
            var w: Int32 = 0, h: Int32 = 0
            guard animplay_WebPGetInfo(b.baseAddress! + at, end - at, &w, &h) != 0 else { return nil }
            return (Int(w), Int(h))
        }

        guard b.count >= 12, tag(0) == "RIFF", tag(8) == "WEBP" else { return "not a RIFF WEBP file" }
        let riffEnd = 8 + le(4, 4)
        guard riffEnd >= 20 else { return "RIFF size \(riffEnd - 8) is too small" }
        let end = min(riffEnd, b.count)
        guard end >= 20 else { return "file truncated inside the header" }
        let truncated = "file truncated before the first complete frame"

        var canvas: (w: Int, h: Int)?
        var animated = false, sawAnim = false, frame = 0, at = 12
        while at + 8 <= end {
            let name = tag(at), size = le(at + 4, 4), body = at + 8
            if body + size > end {
                return end < riffEnd && frame == 0 ? truncated
                                                   : "chunk '\(name)' at offset \(at) runs past the end of the RIFF data"
            }
            switch name {
            case "VP8X":
                guard at == 12 else { return "VP8X chunk is not the first chunk" }
                guard size >= 10 else { return "VP8X chunk is too short" }
                let flags = Int(b[body])
                guard flags & 0xC1 == 0 else { return "VP8X chunk has reserved flag bits set (0x\(String(flags, radix: 16)))" }
                animated = flags & 0x02 != 0
                canvas = (1 + le(body + 4, 3), 1 + le(body + 7, 3))
            case "ANIM":
                sawAnim = true
            case "ANMF":
                guard animated else { return "ANMF chunk in a file without the animation flag" }
                guard sawAnim else { return "ANMF chunk before the ANIM chunk" }
                guard size >= 24 else { return "frame \(frame): ANMF chunk is too short" }
                var sub = body + 16
                if tag(sub) == "ALPH" { sub += 8 + le(sub + 4, 4) + (le(sub + 4, 4) & 1) }
                guard sub + 8 <= body + size, tag(sub) == "VP8 " || tag(sub) == "VP8L" else {
                    return "frame \(frame): no VP8/VP8L image data in its ANMF chunk"
                }
                guard let (w, h) = bitstreamSize(sub, body + size) else {
                    return "frame \(frame): bad \(tag(sub).trimmingSpaces) bitstream header"
                }
                let x = 2 * le(body, 3), y = 2 * le(body + 3, 3)
                if let c = canvas, x + w > c.w || y + h > c.h {
                    return "frame \(frame) (\(w)x\(h)+\(x)+\(y)) extends outside the \(c.w)x\(c.h) canvas"
                }
                frame += 1
            case "VP8 ", "VP8L", "ALPH":
                guard !animated else { return "'\(name)' chunk outside ANMF in an animated file" }
                var image = at
                if name == "ALPH" { image = body + size + (size & 1) }
                guard image + 8 <= end else { return "no VP8/VP8L image data after the ALPH chunk" }
                guard let (w, h) = bitstreamSize(image, end) else {
                    return "bad \(tag(image).trimmingSpaces) bitstream header"
                }
                if let c = canvas, (w, h) != (c.w, c.h) {
                    return "image is \(w)x\(h) but the canvas is \(c.w)x\(c.h)"
                }
                frame += 1
            default:
                break
            }
            at = body + size + (size & 1)
        }
        if end < riffEnd && frame == 0 { return truncated }
        if frame == 0 { return "no frames" }
        return "malformed WebP container"
    }
}

private extension String {
    var trimmingSpaces: String { String(self.reversed().drop { $0 == " " }.reversed()) }
}
