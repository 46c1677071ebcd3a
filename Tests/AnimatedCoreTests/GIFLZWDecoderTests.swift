import Testing
@testable import AnimatedCore

/// `GIFLZWDecoder` against an LZW encoder written here (images made of runs and noise, with and
/// without a clear when the table fills) and against the stack-based `GIFWideCodeLZW` (another
/// decoder of the same semantics) on damaged streams: invalid codes, early end codes, sub-block
/// chains that end, files cut short.
@Suite struct GIFLZWDecoderTests {
    /// Codes packed as a decoder of minimum code size `m` reads them (its width follows its table).
    static func pack(_ codes: [Int], minimumCodeSize m: Int) -> [UInt8] {
        let clear = 1 << m
        var width = m + 1, next = clear + 2, previous = false
        var out: [UInt8] = [], acc = 0, bits = 0
        for c in codes {
            acc |= (c & ((1 << width) - 1)) << bits
            bits += width
            while bits >= 8 { out.append(UInt8(acc & 0xFF)); acc >>= 8; bits -= 8 }
            if c == clear {
                width = m + 1; next = clear + 2; previous = false
            } else {
                if previous && next < 4096 {
                    next += 1
                    if next == 1 << width && width < 12 { width += 1 }
                }
                previous = true
            }
        }
        if bits > 0 { out.append(UInt8(acc & 0xFF)) }
        return out
    }

    /// A plain LZW encoder: a clear first, then one code per longest known string; when the table
    /// is full, a clear (or, `deferredClear`, none: the table stays as it is).
    static func encode(_ pixels: [UInt8], minimumCodeSize m: Int, deferredClear: Bool) -> [Int] {
        let clear = 1 << m
        var table: [Int: Int] = [:], next = clear + 2
        var codes = [clear]
        var w = -1
        for p in pixels.map(Int.init) {
            if w < 0 { w = p; continue }
            if let known = table[w << 8 | p] { w = known; continue }
            codes.append(w)
            if next < 4096 {
                table[w << 8 | p] = next
                next += 1
            } else if !deferredClear {
                codes.append(clear)
                table = [:]; next = clear + 2
            }
            w = p
        }
        if w >= 0 { codes.append(w) }
        codes.append(clear + 1)
        return codes
    }

    /// The code-size byte, then `data` in sub-blocks of the sizes `rng` draws, then a terminator.
    static func frameData(_ data: [UInt8], minimumCodeSize m: Int, using rng: inout TestRandom) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(m)], i = 0
        while i < data.count {
            let n = min(data.count - i, Int.random(in: 1...255, using: &rng))
            bytes.append(UInt8(n)); bytes += data[i..<(i + n)]; i += n
        }
        return bytes + [0]
    }

    /// Decodes `bytes` (a code-size byte, then sub-blocks) for `pixels` indices, in steps of
    /// `step` indices (nil: at once).
    static func decode(_ bytes: [UInt8], pixels: Int, step: Int? = nil) -> (indices: [UInt8], stop: GIFLZWDecoder.Stop?) {
        let input = GIFInput(source: ByteSource(bytes: bytes))
        input.position = 1
        let lzw = GIFLZWDecoder()
        lzw.begin(input: input, minimumCodeSize: Int(bytes[0]), pixels: pixels)
        var made = 0
        while made < pixels {
            let now = lzw.decode(upTo: step.map { made + $0 } ?? pixels)
            if now == made && lzw.stop != nil { break }
            made = now
        }
        return (Array(UnsafeBufferPointer(start: lzw.indices, count: made)), lzw.stop)
    }

    /// An image of `count` indices below `colors`: runs of every length (strings long and
    /// short, repeating themselves: KwKwK at distances under eight and beyond) and noise.
    static func image(count: Int, colors: Int, using rng: inout TestRandom) -> [UInt8] {
        var pixels: [UInt8] = []
        while pixels.count < count {
            let c = UInt8.random(in: 0...UInt8(colors - 1), using: &rng)
            if Bool.random(using: &rng) {
                pixels += [UInt8](repeating: c, count: Int.random(in: 1...300, using: &rng))
            } else {
                for _ in 0..<Int.random(in: 1...40, using: &rng) { pixels.append(UInt8.random(in: 0...UInt8(colors - 1), using: &rng)) }
            }
        }
        return Array(pixels.prefix(count))
    }

    @Test(arguments: [2, 3, 5, 8], [false, true])
    func decodesWhatTheEncoderWrote(minimumCodeSize m: Int, deferredClear: Bool) {
        var rng = TestRandom("lzw-roundtrip-\(m)-\(deferredClear)")
        for size in [1, 7, 64, 5_000, 60_000] {
            let pixels = Self.image(count: size, colors: 1 << m, using: &rng)
            let bytes = Self.frameData(Self.pack(Self.encode(pixels, minimumCodeSize: m, deferredClear: deferredClear),
                                                 minimumCodeSize: m), minimumCodeSize: m, using: &rng)
            let whole = Self.decode(bytes, pixels: size)
            let equal = whole.indices == pixels
            #expect(equal, "\(size) pixels, \(rng)")
            #expect(whole.stop == nil)
            // In steps (rows of 1, 13 and 640 pixels): the same indices.
            for step in [1, 13, 640] where size <= 5_000 || step > 1 {
                let stepped = Self.decode(bytes, pixels: size, step: step).indices == pixels
                #expect(stepped, "\(size) pixels in steps of \(step), \(rng)")
            }
            // Fewer pixels wanted than the data holds: exactly those.
            if size > 1 {
                let fewer = Self.decode(bytes, pixels: size / 2).indices == Array(pixels.prefix(size / 2))
                #expect(fewer, "\(size / 2) of \(size) pixels, \(rng)")
            }
        }
    }

    /// The table stops at 4096 entries without a clear: 12-bit codes go on naming the entries
    /// it has (an image long and varied enough to fill it several times over).
    @Test func deferredClearKeepsTheFullTable() {
        var rng = TestRandom("lzw-deferred-clear")
        let pixels = Self.image(count: 200_000, colors: 16, using: &rng)
        let codes = Self.encode(pixels, minimumCodeSize: 4, deferredClear: true)
        #expect(codes.filter { $0 == 16 }.count == 1)               // the first clear only
        #expect(codes.count > 3 * 4096)
        let decoded = Self.decode(Self.frameData(Self.pack(codes, minimumCodeSize: 4), minimumCodeSize: 4, using: &rng),
                                  pixels: pixels.count).indices
        let equal = decoded == pixels
        #expect(equal)
    }

    /// Random code streams, damaged in every way a file can be, decoded by both decoders: the
    /// same indices, as many, and the same reason to stop.
    @Test func agreesWithTheStackDecoderOnDamagedStreams() {
        var rng = TestRandom("lzw-damaged")
        for trial in 0..<400 {
            let m = Int.random(in: 2...8, using: &rng)
            let clear = 1 << m
            var codes = [clear], next = clear + 2, previous = false
            for _ in 0..<Int.random(in: 1...3000, using: &rng) {
                let roll = Int.random(in: 0..<1000, using: &rng)
                let code: Int
                if roll < 2 { code = clear + 1 }                                         // end, early
                else if roll < 4 { code = min(next + Int.random(in: 1...8, using: &rng), 4095) }   // not defined
                else if roll < 6 && !previous { code = clear + 2 }                      // not a literal
                else if roll < 20 { code = clear }
                else if roll < 500 || !previous { code = Int.random(in: 0..<clear, using: &rng) }
                else { code = Int.random(in: (clear + 2)...min(next, 4095), using: &rng) }   // next: KwKwK
                codes.append(code)
                if code == clear { next = clear + 2; previous = false } else if code != clear + 1 {
                    if previous && next < 4096 { next += 1 }
                    previous = true
                }
            }
            if Int.random(in: 0..<4, using: &rng) > 0 { codes.append(clear + 1) }
            var bytes = Self.frameData(Self.pack(codes, minimumCodeSize: m), minimumCodeSize: m, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: bytes = Array(bytes.prefix(Int.random(in: 1...bytes.count, using: &rng)))    // the file cut short
            case 1: bytes.insert(0, at: Int.random(in: 1...bytes.count, using: &rng))           // a stray terminator
            default: break
            }
            let pixels = Int.random(in: 1...40_000, using: &rng)
            let fast = Self.decode(bytes, pixels: pixels, step: Int.random(in: 1...5000, using: &rng))

            let input = GIFInput(source: ByteSource(bytes: bytes))
            input.position = 1
            let wide = GIFWideCodeLZW(input: input, minimumCodeSize: m)
            var reference = [UInt16](repeating: 0, count: pixels)
            let n = reference.withUnsafeMutableBufferPointer { wide.read(into: $0.baseAddress!, count: pixels) }
            let same = fast.indices == reference.prefix(n).map { UInt8($0) }
            #expect(same, "trial \(trial): \(fast.indices.count) against \(n) indices, \(rng)")
            let expected: [GIFLZWDecoder.Stop?]
            switch wide.failure {
            case nil: expected = [nil]
            case .corrupt: expected = [.invalidCode]
            case .truncated: expected = [.truncated]
            case .endedEarly: expected = [.endCode, .dataEnded]
            }
            #expect(expected.contains(fast.stop), "trial \(trial): \(String(describing: fast.stop)) against \(String(describing: wide.failure)), \(rng)")
            if !same || !expected.contains(fast.stop) { break }
        }
    }
}
