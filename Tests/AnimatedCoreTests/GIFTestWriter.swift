/// Writes small GIFs byte by byte for the GIF decoder tests, recording where each image
/// descriptor starts. LZW data is literal codes only (a clear code every 64 literals keeps the
/// code width fixed), which every decoder must read; `stopAfter` ends the data early with the
/// end-of-information code.
struct GIFTestWriter {
    private(set) var bytes: [UInt8] = []
    /// File offset of each image descriptor's ',' byte.
    private(set) var imageOffsets: [Int] = []
    /// File offset just after each image's data (its block terminator).
    private(set) var imageEnds: [Int] = []

    /// Header and logical screen; `palette` (0xRRGGBB) becomes the global colour table.
    init(width: Int, height: Int, palette: [UInt32]? = nil) {
        bytes += Array("GIF89a".utf8)
        word(width); word(height)
        bytes.append(palette.map { 0x80 | Self.tableBits($0.count) } ?? 0)
        bytes += [0, 0]          // background index, aspect
        if let palette { table(palette) }
    }

    /// NETSCAPE2.0 (or another id) application extension with a loop count.
    mutating func loop(_ count: Int, id: String = "NETSCAPE2.0") {
        bytes += [0x21, 0xFF, 11] + Array(id.utf8) + [3, 1, UInt8(count & 0xFF), UInt8(count >> 8), 0]
    }

    mutating func control(dispose: Int = 0, delayCs: Int = 0, transparent: Int? = nil) {
        let packed = UInt8(dispose << 2) | (transparent == nil ? 0 : 1)
        bytes += [0x21, 0xF9, 4, packed, UInt8(delayCs & 0xFF), UInt8(delayCs >> 8),
                  UInt8(transparent ?? 0), 0]
    }

    mutating func comment(_ text: String) {
        bytes += [0x21, 0xFE, UInt8(text.utf8.count)] + Array(text.utf8) + [0]
    }

    /// An image of colour indices (row-major, `width`*`height`), stored interlaced if asked.
    mutating func image(x: Int = 0, y: Int = 0, width: Int, height: Int, pixels: [UInt8],
                        palette: [UInt32]? = nil, interlaced: Bool = false, codeSize: Int = 8,
                        stopAfter: Int? = nil, invalidCodeAfter: Int? = nil) {
        imageOffsets.append(bytes.count)
        bytes.append(0x2C)
        word(x); word(y); word(width); word(height)
        var packed: UInt8 = interlaced ? 0x40 : 0
        if let palette { packed |= 0x80 | Self.tableBits(palette.count) }
        bytes.append(packed)
        if let palette { table(palette) }

        var order: [UInt8] = []
        if interlaced {
            for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
                for row in stride(from: start, to: height, by: step) {
                    order += pixels[(row * width)..<((row + 1) * width)]
                }
            }
        } else {
            order = pixels
        }
        if let stopAfter { order = Array(order.prefix(stopAfter)) }
        bytes.append(UInt8(codeSize))
        subBlocks(Self.literalLZW(order, codeSize: codeSize, invalidCodeAfter: invalidCodeAfter))
        imageEnds.append(bytes.count)
    }

    mutating func trailer() { bytes.append(0x3B) }

    // MARK: - encoding

    private mutating func word(_ v: Int) { bytes += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }

    /// Size field of a colour table: the table holds 2^(bits+1) entries.
    private static func tableBits(_ count: Int) -> UInt8 {
        var bits: UInt8 = 0
        while (2 << Int(bits)) < count { bits += 1 }
        return bits
    }

    private mutating func table(_ colors: [UInt32]) {
        let size = 2 << Int(Self.tableBits(colors.count))
        for i in 0..<size {
            let c = i < colors.count ? colors[i] : 0
            bytes += [UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)]
        }
    }

    private mutating func subBlocks(_ data: [UInt8]) {
        var i = 0
        while i < data.count {
            let n = min(255, data.count - i)
            bytes.append(UInt8(n))
            bytes += data[i..<(i + n)]
            i += n
        }
        bytes.append(0)
    }

    /// `invalidCodeAfter`: after that many pixels, a code no table holds yet (the largest the
    /// code width allows), then the remaining literals as if nothing happened.
    static func literalLZW(_ pixels: [UInt8], codeSize: Int, invalidCodeAfter: Int? = nil) -> [UInt8] {
        let clear = 1 << codeSize, width = codeSize + 1
        var codes = [clear]
        for (i, p) in pixels.enumerated() {
            if i > 0 && i % 64 == 0 { codes.append(clear) }
            if i == invalidCodeAfter { codes.append((1 << width) - 1) }
            codes.append(Int(p))
        }
        codes.append(clear + 1)
        var out: [UInt8] = []
        var acc = 0, bits = 0
        for c in codes {
            acc |= c << bits
            bits += width
            while bits >= 8 { out.append(UInt8(acc & 0xFF)); acc >>= 8; bits -= 8 }
        }
        if bits > 0 { out.append(UInt8(acc & 0xFF)) }
        return out
    }
}
