@testable import AnimatedCore
@testable import AnimatedTerminal
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Scratch pages: mapped zeroed, and unmapped when the call returns, or, left to a
/// `ScratchPages.Later`, when it releases them (the first sixel frame's buffers wait for the
/// next frame).
@Suite struct ScratchPagesTests {
    /// Whether the kernel has `bytes` at `p` mapped (msync answers ENOMEM for unmapped pages).
    private func mapped(_ p: UnsafeMutableRawPointer, _ bytes: Int) -> Bool {
        msync(p, bytes, MS_ASYNC) == 0
    }

    @Test func pagesAreZeroedAndUnmappedWhenTheCallReturns() {
        let n = 3 * 4096 + 5
        let p = ScratchPages.with(bytes: n) { p -> UnsafeMutableRawPointer in
            let bytes = p.bindMemory(to: UInt8.self, capacity: n)
            #expect((0..<n).allSatisfy { bytes[$0] == 0 })
            bytes[n - 1] = 7
            #expect(mapped(p, n))
            return p
        }
        #expect(!mapped(p, n))
        // With no `Later`, the same.
        let q = ScratchPages.with(bytes: n, unmappingLater: nil) { $0 }
        #expect(!mapped(q, n))
    }

    @Test func pagesLeftToLaterStayUntilItReleasesThem() {
        let later = ScratchPages.Later()
        let n = 64 * 1024
        let p = ScratchPages.with(bytes: n, unmappingLater: later) { p -> UnsafeMutableRawPointer in
            p.storeBytes(of: 0xA5, toByteOffset: 100, as: UInt8.self)
            return p
        }
        let q = ScratchPages.with(bytes: 4096, unmappingLater: later) { $0 }
        #expect(later.count == 2 && mapped(p, n) && mapped(q, 4096))
        #expect(p.load(fromByteOffset: 100, as: UInt8.self) == 0xA5)
        later.release()
        #expect(later.count == 0 && !mapped(p, n) && !mapped(q, 4096))
        later.release()                                     // nothing left: nothing happens
        // A holder that goes unmaps what it holds.
        var holder: ScratchPages.Later? = ScratchPages.Later()
        let r = ScratchPages.with(bytes: n, unmappingLater: holder) { $0 }
        #expect(mapped(r, n))
        holder = nil
        #expect(!mapped(r, n))
    }

    /// The first sixel frame in halves leaves its histograms' and index plane's pages mapped, and
    /// its lower half's map and writer, until the next frame is encoded (they were given back
    /// before it was handed over); a later frame leaves none.
    @Test func theFirstSixelFramesScratchPagesGoWhenTheNextFrameIsEncoded() {
        let w = 640, h = 420                               // past SixelEncoder.halvesPixels
        #expect(w * h >= SixelEncoder.halvesPixels)
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) {                              // a smooth field of many colours
            let x = i % w, y = i / w
            rgb[3 * i] = UInt8(x * 255 / w); rgb[3 * i + 1] = UInt8(y * 255 / h); rgb[3 * i + 2] = UInt8((x + y) % 256)
        }
        let encoder = SixelEncoder(background: .terminal)
        let first = rgb.withUnsafeBufferPointer { Array(encoder.encodeInPlace(rgb: $0.baseAddress!, width: w, height: h)) }
        #expect(encoder.scratchWaiting == 3)
        let second = rgb.withUnsafeBufferPointer { Array(encoder.encodeInPlace(rgb: $0.baseAddress!, width: w, height: h)) }
        #expect(encoder.scratchWaiting == 0)
        #expect(first.starts(with: [0x1B, 0x50]) && second.starts(with: [0x1B, 0x50]))
    }
}
