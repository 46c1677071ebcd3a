import AnimatedCore

/// Netpbm's binary PPM (P6) and PAM (P7) as an AnimatedCore coder: one still frame, 8-bit
/// samples (maxval 255); PAM depth 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA).
struct PNMCoder: ImageCoder {
    var name: String { "PPM/PAM" }

    func canDecode(head: [UInt8]) -> Bool {
        // "P6" or "P7" and then whitespace (P7 followed by "332" would be XV thumbnails).
        head.count >= 3 && head[0] == UInt8(ascii: "P") && (head[1] == UInt8(ascii: "6") || head[1] == UInt8(ascii: "7"))
            && [0x20, 0x09, 0x0A, 0x0D].contains(head[2])
    }

    func open(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> any AnimationDecoder {
        try PNMDecoder(source: source, options: options)
    }
}

/// One PPM or PAM image. The header is parsed when opening; the pixels are read when the frame
/// is drawn.
final class PNMDecoder: AnimationDecoder {
    let info: AnimationInfo
    private let source: ByteSource
    private let dataOffset: Int
    private let depth: Int

    init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        self.source = source
        let head = try source.bytes(at: 0, length: min(source.count, 4096))
        var header = PNMHeader(head)
        let magic = header.token()
        var width = 0, height = 0, maxval = 0, depth = 3
        if magic == "P6" {
            guard let w = header.number(), let h = header.number(), let m = header.number() else {
                throw .invalid("PPM header is incomplete")
            }
            (width, height, maxval) = (w, h, m)
            header.position += 1            // the single whitespace byte before the samples
        } else if magic == "P7" {
            while true {
                guard let key = header.token() else { throw .invalid("PAM header has no ENDHDR") }
                if key == "ENDHDR" { header.skipLine(); break }
                switch key {
                case "WIDTH": width = header.number() ?? 0
                case "HEIGHT": height = header.number() ?? 0
                case "DEPTH": depth = header.number() ?? 0
                case "MAXVAL": maxval = header.number() ?? 0
                default: header.skipLine()      // TUPLTYPE and anything else
                }
            }
        } else {
            throw .unsupportedFormat("not a PPM (P6) or PAM (P7) file")
        }
        guard maxval == 255 else { throw .unsupportedFormat("maxval \(maxval): only 8-bit samples (255) are read") }
        guard (1...4).contains(depth) else { throw .invalid("PAM depth \(depth) is not 1 to 4") }
        try options.limits.check(width: width, height: height)
        guard source.count - header.position >= width * height * depth else {
            throw .invalid("file ends before its \(width)x\(height) samples")
        }
        self.dataOffset = header.position
        self.depth = depth
        let whole = FrameRect(x: 0, y: 0, width: width, height: height)
        let format = ImageFormat(magic == "P6" ? "ppm" : "pam")
        info = AnimationInfo(format: format, width: width, height: height,
                             frames: [FrameInfo(rect: whole, delayMs: 0, dispose: .none, blend: .source,
                                                hasAlpha: depth == 2 || depth == 4)],
                             plays: 1, timing: options.timing)
    }

    /// Reads the samples row by row and widens them to RGBA on the canvas.
    func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        let width = info.width, depth = self.depth
        var row = [UInt8](repeating: 0, count: width * depth)
        try canvas.withUnsafeMutableBytes { (pixels) throws(AnimatedError) in
            for y in 0..<min(info.height, canvas.height) {
                guard let got = try? source.bytes(at: dataOffset + y * width * depth, length: row.count),
                      got.count == row.count else { throw .invalid("file ends in row \(y)") }
                row = got
                for x in 0..<min(width, canvas.width) {
                    let s = x * depth, d = (y * canvas.width + x) * 4
                    switch depth {
                    case 1, 2:
                        pixels[d] = row[s]; pixels[d + 1] = row[s]; pixels[d + 2] = row[s]
                        pixels[d + 3] = depth == 2 ? row[s + 1] : 255
                    default:
                        pixels[d] = row[s]; pixels[d + 1] = row[s + 1]; pixels[d + 2] = row[s + 2]
                        pixels[d + 3] = depth == 4 ? row[s + 3] : 255
                    }
                }
            }
        }
    }
}

/// Netpbm header tokens: whitespace-separated, `#` comments to the end of the line.
struct PNMHeader {
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func token() -> String? {
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "#") { skipLine() } else if isSpace(bytes[position]) { position += 1 } else { break }
        }
        let start = position
        while position < bytes.count, !isSpace(bytes[position]) { position += 1 }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    mutating func number() -> Int? { token().flatMap { Int($0) }.flatMap { $0 >= 0 && $0 <= 1 << 30 ? $0 : nil } }

    mutating func skipLine() {
        while position < bytes.count, bytes[position] != 0x0A { position += 1 }
        position += 1
    }

    private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
}
