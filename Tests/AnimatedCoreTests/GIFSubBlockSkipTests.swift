import Testing
@testable import AnimatedCore

/// `GIFHandle.skipSubBlocks` passes over whole sub-blocks inside `GIFInput`'s read buffer
/// without a read each: where it stops and what it reports must be what reading every size and
/// then its data gives, across the buffer's end (64 KB) and where the data runs out.
@Suite struct GIFSubBlockSkipTests {
    /// A GIF header (GIF89a, 1×1, no colour table): 13 bytes, then the chain under test.
    static let header: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]

    static func handle(_ bytes: [UInt8]) throws -> GIFHandle {
        let handle = try GIFHandle(input: GIFInput(source: ByteSource(bytes: bytes)))
        handle.input.position = header.count
        handle.input.pastEnd = false
        return handle
    }

    /// Reading each size byte and then its data, as the index did before the buffered pass.
    static func byReads(_ input: GIFInput) -> Bool {
        while true {
            var size: UInt8 = 0
            guard input.read(into: &size, count: 1) == 1 else { return false }
            if size == 0 { return true }
            guard input.read(into: nil, count: Int(size)) == Int(size) else { return false }
            if input.pastEnd { return true }
        }
    }

    /// Sub-blocks of the sizes `sizes` (data bytes 0xAB), each chain's end a zero size.
    static func chain(_ sizes: [Int]) -> [UInt8] {
        sizes.flatMap { [UInt8($0)] + [UInt8](repeating: 0xAB, count: $0) }
    }

    static let full = chain([Int](repeating: 255, count: 300) + [0])                 // 77 KB
    static let mixed: [UInt8] = {
        var rng = SplitMix(state: 0x5B)
        return chain((0..<1200).map { _ in 1 + Int(rng.next() % 255) } + [0])            // ~150 KB
    }()
    static let cases: [(String, [UInt8])] = [
        ("255-byte sub-blocks across the buffer's end", full + chain([3, 0])),
        ("mixed sizes", mixed + chain([7, 0])),
        ("data cut inside a sub-block past the buffer", Array(full.prefix(70_000))),
        ("data cut inside a sub-block in the first buffer", Array(full.prefix(1_000))),
        ("data ending just before the terminator", Array(full.dropLast())),
        ("an empty chain", [0, 5]),
        ("no data at all", []),
    ]

    @Test(arguments: 0..<cases.count)
    func skippingMatchesReadingEverySubBlock(_ k: Int) throws {
        let (name, chain) = Self.cases[k]
        let bytes = Self.header + chain
        let fast = try Self.handle(bytes), slow = try Self.handle(bytes)
        let skipped = fast.skipSubBlocks(), read = Self.byReads(slow.input)
        #expect(skipped == read, "\(name)")
        #expect(fast.input.position == slow.input.position, "\(name)")
        #expect(fast.input.pastEnd == slow.input.pastEnd, "\(name)")
        // The next chain (where there is one) is skipped alike from there.
        #expect(fast.skipSubBlocks() == Self.byReads(slow.input) && fast.input.position == slow.input.position, "\(name)")
    }

    @Test func aWholeChainStopsJustPastItsTerminator() throws {
        let handle = try Self.handle(Self.header + Self.full + [0x3B])
        #expect(handle.skipSubBlocks())
        #expect(handle.input.position == Self.header.count + Self.full.count && !handle.input.pastEnd)
    }
}
