import CZstd

/// zstd (RFC 8878) frames for the sixel images the frame buffer holds: one context each way,
/// made once and reused for every frame (a context is 0.1–1 MB of tables and buffers that
/// zstd's one-shot `ZSTD_compress`/`ZSTD_decompress` would allocate and free on every call).
/// Frames carry their content size (the reader allocates exactly that) and no checksum (they
/// never leave the process).
package enum Zstd {
    /// Compresses at one level through a reused context and a reused buffer of
    /// `ZSTD_compressBound` bytes. Not thread-safe: one user at a time.
    package final class Compressor {
        private let context: OpaquePointer
        private var space = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 16)
        private var capacity = 0

        /// `level`: 1 fastest … 19 smallest (zstd's levels; negative ones are faster still).
        /// `hashLog`, `chainLog`: the match finder's tables (4 bytes × 2^log each, the bulk of
        /// the context's memory) instead of the level's.
        package init(level: Int32, hashLog: Int32? = nil, chainLog: Int32? = nil) {
            guard let c = ZSTD_createCCtx() else { fatalError("ZSTD_createCCtx: out of memory") }
            context = c
            var rc = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)
            if let hashLog, ZSTD_isError(rc) == 0 { rc = ZSTD_CCtx_setParameter(c, ZSTD_c_hashLog, hashLog) }
            if let chainLog, ZSTD_isError(rc) == 0 { rc = ZSTD_CCtx_setParameter(c, ZSTD_c_chainLog, chainLog) }
            precondition(ZSTD_isError(rc) == 0, "zstd parameters refused")
        }

        deinit { ZSTD_freeCCtx(context); space.deallocate() }

        /// `bytes` as one zstd frame in an array of its own size: compressed into the reused
        /// buffer, then copied once (a frame buffer counts an array's `count`, not the bound's
        /// capacity it would hold on to; transient buffers of a frame's size per frame left the
        /// producer's malloc arena fragmented).
        package func compress(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
            let bound = ZSTD_compressBound(bytes.count)
            if capacity < bound {
                space.deallocate()
                space = .allocate(byteCount: bound, alignment: 16)
                capacity = bound
            }
            let n = ZSTD_compress2(context, space, bound, bytes.baseAddress, bytes.count)
            // Into compressBound bytes it cannot run out of room: an error is a broken invariant.
            precondition(ZSTD_isError(n) == 0, "ZSTD_compress2 failed")
            return [UInt8](unsafeUninitializedCapacity: n) { out, count in
                out.baseAddress!.update(from: space.assumingMemoryBound(to: UInt8.self), count: n)
                count = n
            }
        }
    }

    /// Decompresses whole frames through a reused context. Not thread-safe: one user at a time.
    package final class Decompressor {
        private let context: OpaquePointer

        package init() {
            guard let c = ZSTD_createDCtx() else { fatalError("ZSTD_createDCtx: out of memory") }
            context = c
        }

        deinit { ZSTD_freeDCtx(context) }

        /// The length `frame` decompresses to, from its header; nil if it is no zstd frame or
        /// does not say (or says more than 2 GB: no sixel image is that large).
        package static func contentSize(_ frame: UnsafeRawBufferPointer) -> Int? {
            guard let base = frame.baseAddress else { return nil }
            let n = ZSTD_getFrameContentSize(base, frame.count)  // UNKNOWN and ERROR are 2⁶⁴ − 1, − 2
            return n <= UInt64(Int32.max) ? Int(n) : nil
        }

        /// `frame` decompressed into `space`; the length, or nil if the frame is damaged or
        /// does not fit.
        package func decompress(_ frame: UnsafeRawBufferPointer, into space: UnsafeMutableRawBufferPointer) -> Int? {
            guard let input = frame.baseAddress else { return nil }
            let n = ZSTD_decompressDCtx(context, space.baseAddress, space.count, input, frame.count)
            return ZSTD_isError(n) == 0 ? n : nil
        }
    }
}
