/// Finds where a frame's LZW data stops being valid, without producing pixels.
///
/// giflib decodes past an invalid code (one above the next code to be defined, or a first code
/// after a clear that is not a literal): it makes up a string from its stale tables, and every
/// pixel after that is garbage. Browsers stop the frame at that code and keep what came before
/// (Chromium's GIF decoder, Wuffs: "bad code"). This pass walks the codes, tracking only each
/// table entry's string length, and tells the decoder how many pixels come before the first
/// invalid code, so it draws exactly those. It costs one read of the compressed data and a few
/// operations per code (a code stands for several pixels), far less than decoding.
final class GIFLZWCheck {
    /// String length of each code in the table (literals are 1).
    private let lengths = UnsafeMutablePointer<UInt16>.allocate(capacity: 4096)
    private var block = [UInt8](repeating: 0, count: 256)

    deinit { lengths.deallocate() }

    /// The number of pixels the data at `input.position` (the first sub-block, just after the
    /// code-size byte) yields before its first invalid code, or nil when the first `pixels`
    /// pixels are all valid (or the data ends first: giflib reports that itself). Leaves `input`
    /// where it found it.
    func pixelsBeforeInvalidCode(_ input: GIFInput, pixels: Int) -> Int? {
        let start = input.position, clamps = input.clampsSubBlocks, wasPastEnd = input.pastEnd
        input.clampsSubBlocks = false
        defer { input.position = start; input.clampsSubBlocks = clamps; input.pastEnd = wasPastEnd }
        guard pixels > 0, start > 0 else { return nil }
        var codeSize: UInt8 = 0
        input.position = start - 1
        guard input.read(into: &codeSize, count: 1) == 1, (2...8).contains(codeSize) else { return nil }
        let minimumCodeSize = Int(codeSize)

        let clear = 1 << minimumCodeSize, end = clear + 1
        var width = minimumCodeSize + 1, next = clear + 2, previous = -1
        var bits: UInt64 = 0, bitCount = 0
        var count = 0
        return block.withUnsafeMutableBytes { buf -> Int? in
            let bytes = buf.baseAddress!
            while true {
                // One sub-block at a time: a size byte, then that many bytes.
                var size: UInt8 = 0
                guard input.read(into: &size, count: 1) == 1, !input.pastEnd, size > 0 else { return nil }
                guard input.read(into: bytes, count: Int(size)) == Int(size), !input.pastEnd else { return nil }
                var i = 0
                while i < Int(size) {
                    bits |= UInt64(bytes.load(fromByteOffset: i, as: UInt8.self)) &<< UInt64(bitCount)
                    bitCount &+= 8
                    i &+= 1
                    while bitCount >= width {
                        let code = Int(truncatingIfNeeded: bits & ((1 &<< UInt64(width)) &- 1))
                        bits &>>= UInt64(width)
                        bitCount &-= width
                        if code == clear {
                            width = minimumCodeSize + 1; next = clear + 2; previous = -1
                            continue
                        }
                        if code == end { return nil }
                        let length: Int
                        if previous < 0 {
                            guard code < clear else { return count }          // not a literal
                            length = 1
                        } else {
                            let previousLength = previous < clear ? 1 : Int(lengths[previous])   // ≤ 4096
                            if code < next {
                                length = code < clear ? 1 : Int(lengths[code])
                            } else if code == next {
                                length = previousLength &+ 1                  // KwKwK
                            } else {
                                return count                                  // not defined yet
                            }
                            if next < 4096 {
                                lengths[next] = UInt16(truncatingIfNeeded: previousLength &+ 1)
                                next &+= 1
                                if next == 1 &<< width && width < 12 { width &+= 1 }
                            }
                        }
                        previous = code
                        count &+= length                                      // ≤ pixels + 4096
                        if count >= pixels { return nil }
                    }
                }
            }
        }
    }
}
