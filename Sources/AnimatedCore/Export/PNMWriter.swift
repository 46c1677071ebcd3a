#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes frames as binary PPM (alpha composited over a background) or PAM (RGBA).
public enum PNMWriter {
    /// PPM (RGB over a background) or PAM (RGBA).
    public enum Format: String, Sendable, CaseIterable { case ppm, pam }

    /// Encodes `canvas` into a PPM/PAM file image.
    public static func encode(_ canvas: Canvas, format: Format, background: (UInt8, UInt8, UInt8) = (0, 0, 0)) -> [UInt8] {
        let w = canvas.width, h = canvas.height
        switch format {
        case .pam:
            let header = "P7\nWIDTH \(w)\nHEIGHT \(h)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
            var out = [UInt8](header.utf8)
            out.append(contentsOf: canvas.pixels)
            return out
        case .ppm:
            let header = "P6\n\(w) \(h)\n255\n"
            var out = [UInt8](header.utf8)
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: w * h * 3))
            out.withUnsafeMutableBufferPointer { dst in
                let src = canvas.pixels
                let bg = [Int(background.0), Int(background.1), Int(background.2)]
                var s = 0, d = start
                for _ in 0..<(w * h) {
                    let a = Int(src[s + 3])
                    for c in 0..<3 {
                        // Rounded straight-alpha over an opaque background.
                        dst[d + c] = UInt8((Int(src[s + c]) * a + bg[c] * (255 - a) + 127) / 255)
                    }
                    s += 4; d += 3
                }
            }
            return out
        }
    }

    /// Writes `bytes` to `path`, replacing it.
    public static func write(_ bytes: [UInt8], to path: String) throws(AnimatedError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .posix(.output, errno, "\(path): ") }
        defer { close(fd) }
        let e = bytes.withUnsafeBytes { writeAll(fd, $0) }
        guard e == 0 else { throw .posix(.output, e, "\(path): ") }
    }
}
