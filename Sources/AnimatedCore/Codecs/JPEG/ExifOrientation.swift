/// The EXIF orientation of a still (TIFF tag 0x0112), applied as browsers apply it by default
/// (`image-orientation: from-image`): values 2–8 flip and/or turn the stored pixels; 1, a
/// missing tag and anything invalid leave them as stored.
public enum ExifOrientation: Int, Sendable {
    case normal = 1, flipX, rotate180, flipY, transpose, rotate90, transverse, rotate270

    /// Whether the shown image is the stored one turned a quarter (width and height swap).
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The orientation in a JPEG's first Exif APP1 segment before the scan data; `.normal`
    /// when there is none or it cannot be read.
    static func ofJPEG(_ bytes: UnsafeRawBufferPointer) -> ExifOrientation {
        var p = 2                                   // after SOI
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .normal }
        while p + 4 <= bytes.count {
            guard bytes[p] == 0xFF else { return .normal }
            let marker = bytes[p + 1]
            if marker == 0xFF { p += 1; continue }   // fill byte
            if marker == 0xDA || marker == 0xD9 { return .normal }   // SOS, EOI: no Exif before the data
            let length = Int(bytes[p + 2]) << 8 | Int(bytes[p + 3])
            guard length >= 2, p + 2 + length <= bytes.count else { return .normal }
            if marker == 0xE1, length >= 8,
               bytes[p + 4] == 0x45, bytes[p + 5] == 0x78, bytes[p + 6] == 0x69, bytes[p + 7] == 0x66,
               bytes[p + 8] == 0, bytes[p + 9] == 0 {           // "Exif\0\0"
                return ofTIFF(UnsafeRawBufferPointer(rebasing: bytes[(p + 10)..<(p + 2 + length)]))
            }
            p += 2 + length
        }
        return .normal
    }

    /// The orientation tag of IFD0 of a TIFF structure (the body of an Exif segment).
    static func ofTIFF(_ t: UnsafeRawBufferPointer) -> ExifOrientation {
        guard t.count >= 8 else { return .normal }
        let little: Bool
        if t[0] == 0x49 && t[1] == 0x49 { little = true } else if t[0] == 0x4D && t[1] == 0x4D { little = false } else { return .normal }
        func u16(_ i: Int) -> Int? {
            guard i >= 0, i + 2 <= t.count else { return nil }
            return little ? Int(t[i]) | Int(t[i + 1]) << 8 : Int(t[i]) << 8 | Int(t[i + 1])
        }
        func u32(_ i: Int) -> Int? {
            guard let a = u16(i), let b = u16(i + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return .normal }
        for k in 0..<count {
            let e = ifd + 2 + 12 * k
            guard let tag = u16(e) else { return .normal }
            if tag == 0x0112 {
                // SHORT, count 1: the value sits in the first two bytes of the value field.
                guard u16(e + 2) == 3, u32(e + 4) == 1, let v = u16(e + 8) else { return .normal }
                return ExifOrientation(rawValue: v) ?? .normal
            }
        }
        return .normal
    }

    /// Copies a `width`×`height` RGBA image (`stride` bytes a row) to `canvas` (its size
    /// already turned), flipped and turned as this orientation says.
    func apply(_ src: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, to canvas: Canvas) {
        let out = UnsafeMutableRawPointer(canvas.pixels.baseAddress!)
        let input = UnsafeRawPointer(src)
        let dw = canvas.width, dh = canvas.height
        precondition(swapsAxes ? (dw == height && dh == width) : (dw == width && dh == height))
        for y in 0..<dh {
            let row = out + y * dw * 4
            for x in 0..<dw {
                let sx: Int, sy: Int
                switch self {
                case .normal: (sx, sy) = (x, y)
                case .flipX: (sx, sy) = (width - 1 - x, y)
                case .rotate180: (sx, sy) = (width - 1 - x, height - 1 - y)
                case .flipY: (sx, sy) = (x, height - 1 - y)
                case .transpose: (sx, sy) = (y, x)
                case .rotate90: (sx, sy) = (y, height - 1 - x)
                case .transverse: (sx, sy) = (width - 1 - y, height - 1 - x)
                case .rotate270: (sx, sy) = (width - 1 - y, x)
                }
                row.storeBytes(of: input.loadUnaligned(fromByteOffset: sy * stride + sx * 4, as: UInt32.self),
                               toByteOffset: x * 4, as: UInt32.self)
            }
        }
    }
}
