import CZlib
import AnimatedCore

/// zlib (RFC 1950) compression of frame payloads, as the kitty graphics protocol's `o=z` expects.
package enum Zlib {
    /// `bytes` compressed at `level` (1 fastest … 9 smallest). zlib's one-shot `compress2`
    /// into a buffer of `compressBound` bytes cannot run out of room, so it only fails on
    /// memory exhaustion, which traps like any other allocation failure.
    ///
    /// The result is copied to its own size when it is much smaller than the bound: frame
    /// buffers keep these arrays and count their `count`, not the capacity they would hold on to
    /// (a sixel frame compressed 6× kept all of its original size).
    package static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32) -> [UInt8] {
        let bound = bound(bytes.count)
        let out = [UInt8](unsafeUninitializedCapacity: bound) { out, n in
            n = compress(bytes, level: level, into: UnsafeMutableRawBufferPointer(out))
        }
        guard out.count * 4 < bound * 3 else { return out }
        return [UInt8](unsafeUninitializedCapacity: out.count) { copy, n in
            out.withUnsafeBufferPointer { copy.baseAddress!.update(from: $0.baseAddress!, count: $0.count) }
            n = out.count
        }
    }

    /// Room enough for `count` bytes compressed (zlib's `compressBound`).
    package static func bound(_ count: Int) -> Int { Int(compressBound(uLong(count))) }

    /// `bytes` compressed at `level` into `space` (at least `bound(bytes.count)` bytes); the
    /// compressed length.
    package static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32, into space: UnsafeMutableRawBufferPointer) -> Int {
        precondition(space.count >= bound(bytes.count))
        var size = uLongf(space.count)
        let rc = compress2(space.baseAddress!.assumingMemoryBound(to: Bytef.self), &size,
                           bytes.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(bytes.count), level)
        precondition(rc == Z_OK, "zlib compress2 failed (\(rc))")
        return Int(size)
    }

    /// `bytes` (a complete zlib stream) inflated into `space`; the length inflated, or nil if
    /// the stream is damaged or does not fit.
    package static func decompress(_ bytes: UnsafeRawBufferPointer, into space: UnsafeMutableRawBufferPointer) -> Int? {
        guard let out = space.baseAddress, let input = bytes.baseAddress else { return nil }
        var size = uLongf(space.count)
        let rc = uncompress(out.assumingMemoryBound(to: Bytef.self), &size,
                            input.assumingMemoryBound(to: Bytef.self), uLong(bytes.count))
        return rc == Z_OK ? Int(size) : nil
    }

    /// `bytes` inflated, if they are a complete zlib stream of at most `limit` bytes (tests,
    /// and the protocol's own round-trip checks).
    package static func decompress(_ bytes: [UInt8], limit: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max(1, limit))
        let size = out.withUnsafeMutableBytes { o in bytes.withUnsafeBytes { decompress($0, into: o) } }
        guard let size else { return nil }
        out.removeSubrange(size...)
        return out
    }
}
