#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A canvas-sized RGBA image as one UInt32 per pixel (bytes in memory order R, G, B, A), the
/// encoders' working copy of a frame: comparing and copying whole pixels, not bytes.
final class PixelPlane {
    let width: Int, height: Int
    let pixels: UnsafeMutableBufferPointer<UInt32>

    /// A transparent plane.
    init(width: Int, height: Int) {
        self.width = width; self.height = height
        pixels = .allocate(capacity: width * height)
        pixels.initialize(repeating: 0)
    }

    deinit { pixels.deallocate() }

    var base: UnsafeMutablePointer<UInt32> { pixels.baseAddress! }

    /// Copies a canvas of the same size.
    func copy(from canvas: Canvas) {
        precondition(canvas.width == width && canvas.height == height)
        UnsafeMutableRawPointer(base).copyMemory(from: canvas.pixels.baseAddress!, byteCount: width * height * 4)
    }

    /// Copies another plane of the same size.
    func copy(from other: PixelPlane) { base.update(from: other.base, count: width * height) }

    /// Sets `rect` (inside the plane) to transparent black.
    func clear(_ r: FrameRect) {
        for y in r.y..<(r.y + r.height) { (base + y * width + r.x).update(repeating: 0, count: r.width) }
    }

    /// The smallest rectangle holding every pixel where `self` and `other` differ, or nil.
    func changedRect(against other: PixelPlane) -> FrameRect? {
        let a = base, b = other.base
        var top = -1, bottom = -1
        for y in 0..<height where !rowEqual(a + y * width, b + y * width, width) { top = y; break }
        guard top >= 0 else { return nil }
        for y in stride(from: height - 1, through: top, by: -1) where !rowEqual(a + y * width, b + y * width, width) {
            bottom = y; break
        }
        var left = width, right = -1
        for y in top...bottom {
            let ra = a + y * width, rb = b + y * width
            var x = 0
            while x < left { if ra[x] != rb[x] { left = x; break }; x += 1 }
            x = width - 1
            while x > right { if ra[x] != rb[x] { right = x; break }; x -= 1 }
        }
        return FrameRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }

    @inline(__always)
    private func rowEqual(_ a: UnsafeMutablePointer<UInt32>, _ b: UnsafeMutablePointer<UInt32>, _ n: Int) -> Bool {
        memcmp(a, b, n * 4) == 0
    }
}

/// Big-endian bytes of integers (PNG chunks).
extension Array where Element == UInt8 {
    mutating func appendBE32(_ v: UInt32) {
        append(UInt8(v >> 24)); append(UInt8((v >> 16) & 0xFF)); append(UInt8((v >> 8) & 0xFF)); append(UInt8(v & 0xFF))
    }
    mutating func appendBE16(_ v: UInt16) { append(UInt8(v >> 8)); append(UInt8(v & 0xFF)) }
}
