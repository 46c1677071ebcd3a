#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Zeroed memory of its own pages (an anonymous mapping), given back to the kernel when the
/// call returns: for large scratch buffers that live for one call (a palette's histogram, the
/// first sixel frame's index plane).
///
/// Why not malloc: freeing a block of this size raises glibc's mmap threshold to it (its
/// dynamic threshold), and from then on blocks up to that size come from a thread's heap,
/// where a freed one stays resident between the frames the frame buffer holds (+1.8 MB of the
/// producer's heap at the end of the large benchmark video). Pages of their own leave no hole,
/// need no clearing (the kernel zeroes them) and only those touched become resident.
package enum ScratchPages {
    /// Runs `body` with `bytes` zeroed bytes (page-aligned), unmapped when it returns.
    package static func with<R>(bytes: Int, _ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        let n = max(1, bytes)
        let raw = mmap(nil, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let p = raw, p != UnsafeMutableRawPointer(bitPattern: -1) else {
            // Out of address space: malloc's answer would be no better.
            fatalError("mmap of \(n) bytes failed")
        }
        defer { munmap(p, n) }
        return try body(p)
    }
}
