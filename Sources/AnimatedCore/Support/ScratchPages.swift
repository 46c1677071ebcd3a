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
        let (p, n) = map(bytes)
        defer { munmap(p, n) }
        return try body(p)
    }

    /// As `with(bytes:_:)`, the pages unmapped later, by `later.release()` (when it is nil,
    /// as `with(bytes:_:)`).
    package static func with<R>(bytes: Int, unmappingLater later: Later?,
                                _ body: (UnsafeMutableRawPointer) throws -> R) rethrows -> R {
        guard let later else { return try with(bytes: bytes, body) }
        let (p, n) = map(bytes)
        later.mappings.append((p, n))
        return try body(p)
    }

    /// `bytes` zeroed bytes of pages of their own that outlive a call (a decoder's buffer of a
    /// frame's size), for `deallocate(_:bytes:)` with the same size.
    package static func allocate(bytes: Int) -> UnsafeMutableRawPointer { map(bytes).0 }

    /// Unmaps what `allocate(bytes:)` returned.
    package static func deallocate(_ pages: UnsafeMutableRawPointer, bytes: Int) { munmap(pages, max(1, bytes)) }

    private static func map(_ bytes: Int) -> (UnsafeMutableRawPointer, Int) {
        let n = max(1, bytes)
        let raw = mmap(nil, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let p = raw, p != UnsafeMutableRawPointer(bitPattern: -1) else {
            // Out of address space: malloc's answer would be no better.
            fatalError("mmap of \(n) bytes failed")
        }
        return (p, n)
    }

    /// Mappings whose unmapping waits for a better moment. Unmapping a few MB of touched pages
    /// costs 0.2–0.3 ms each time here (the pages freed, and the other core's TLB flushed): the
    /// first sixel frame's histograms, index plane and RGB took 0.8 ms between its palette and
    /// its hand-over to the display, where nothing else could run. Its producer unmaps them
    /// when it starts the next frame, while the display writes this one.
    /// One owner thread at a time (not `Sendable`); what is left is unmapped at deinit.
    package final class Later {
        fileprivate var mappings: [(UnsafeMutableRawPointer, Int)] = []

        package init() {}

        deinit { release() }

        /// Unmaps every mapping left here.
        package func release() {
            for (p, n) in mappings { munmap(p, n) }
            mappings.removeAll(keepingCapacity: true)
        }

        /// Mappings waiting (for tests).
        package var count: Int { mappings.count }
    }
}
