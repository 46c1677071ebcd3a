/// LZW decoding for images whose minimum code size is 9, 10 or 11 (the tests also compare it
/// with `GIFLZWDecoder`, a decoder of the same semantics written differently).
///
/// giflib refuses minimum code sizes above 8 (a palette has at most 256 colours), but the
/// format's 12-bit code limit allows up to 11, and browsers, Pillow, ImageMagick, ffmpeg and
/// gifsicle all decode such files (corpus: pygif max-codes, Pillow issue_2811). This small
/// decoder covers only that gap; the images of code sizes 2...8 go through `GIFLZWDecoder`.
///
/// It reads the image's sub-blocks from `input` (positioned just after the code-size byte)
/// and produces colour indices a row at a time. They are 16-bit: literal codes can exceed 255,
/// and those indices lie outside any colour table (drawn opaque black).
final class GIFWideCodeLZW {
    enum Failure { case truncated, corrupt, endedEarly }

    private let input: GIFInput
    private let minimumCodeSize: Int
    private let prefix = UnsafeMutablePointer<UInt16>.allocate(capacity: 4096)
    private let suffix = UnsafeMutablePointer<UInt16>.allocate(capacity: 4096)
    private let stack = UnsafeMutablePointer<UInt16>.allocate(capacity: 4097)
    private var stackCount = 0

    private var block = [UInt8](repeating: 0, count: 256)
    private var blockCount = 0, blockIndex = 0
    private var bits: UInt32 = 0, bitCount = 0
    private var dataEnded = false

    private var codeWidth = 0, nextCode = 0, previous = -1, previousFirst: UInt16 = 0
    private(set) var failure: Failure?

    init(input: GIFInput, minimumCodeSize: Int) {
        self.input = input
        self.minimumCodeSize = minimumCodeSize
        reset()
    }

    deinit { prefix.deallocate(); suffix.deallocate(); stack.deallocate() }

    private var clearCode: Int { 1 << minimumCodeSize }

    private func reset() {
        codeWidth = minimumCodeSize + 1
        nextCode = clearCode + 2
        previous = -1
    }

    /// Decodes up to `count` indices into `dst`; returns how many (fewer only on failure).
    func read(into dst: UnsafeMutablePointer<UInt16>, count: Int) -> Int {
        var n = 0
        while n < count {
            if stackCount > 0 {
                stackCount -= 1
                dst[n] = stack[stackCount]
                n += 1
                continue
            }
            if failure != nil { return n }
            guard let code = nextCodeValue() else {
                failure = input.pastEnd ? .truncated : .endedEarly
                return n
            }
            let clear = clearCode
            if code == clear { reset(); continue }
            if code == clear + 1 { failure = .endedEarly; return n }
            if previous < 0 {
                // First code after a clear: a literal.
                guard code < clear else { failure = .corrupt; return n }
                previous = code
                previousFirst = UInt16(code)
                dst[n] = previousFirst
                n += 1
                continue
            }
            var c: Int
            if code < nextCode {
                c = code
            } else if code == nextCode {
                // The code being defined: previous string + its own first index.
                stack[stackCount] = previousFirst
                stackCount += 1
                c = previous
            } else {
                failure = .corrupt
                return n
            }
            while c >= clear {
                stack[stackCount] = suffix[c]
                stackCount += 1
                c = Int(prefix[c])
            }
            let first = UInt16(c)
            stack[stackCount] = first
            stackCount += 1
            if nextCode < 4096 {
                prefix[nextCode] = UInt16(previous)
                suffix[nextCode] = first
                nextCode += 1
                if nextCode == 1 << codeWidth && codeWidth < 12 { codeWidth += 1 }
            }
            previous = code
            previousFirst = first
        }
        return n
    }

    /// The next `codeWidth`-bit code (least significant bits first), or nil at the end of data.
    private func nextCodeValue() -> Int? {
        while bitCount < codeWidth {
            guard let byte = nextByte() else { return nil }
            bits |= UInt32(byte) << UInt32(bitCount)
            bitCount += 8
        }
        let code = Int(bits & ((1 << UInt32(codeWidth)) - 1))
        bits >>= UInt32(codeWidth)
        bitCount -= codeWidth
        return code
    }

    private func nextByte() -> UInt8? {
        if blockIndex == blockCount {
            if dataEnded { return nil }
            var size: UInt8 = 0
            guard input.read(into: &size, count: 1) == 1, !input.pastEnd, size > 0 else {
                dataEnded = true
                return nil
            }
            let start = input.position
            let got = block.withUnsafeMutableBytes { input.read(into: $0.baseAddress!, count: Int(size)) }
            guard got == Int(size) else { dataEnded = true; return nil }
            // A block cut off by the end of the file: only the bytes that exist are data.
            blockCount = input.pastEnd ? max(0, input.source.count - start) : Int(size)
            dataEnded = input.pastEnd
            blockIndex = 0
            if blockCount == 0 { return nil }
        }
        defer { blockIndex += 1 }
        return block[blockIndex]
    }

    var failureMessage: String {
        switch failure {
        case .truncated: return "image data truncated"
        case .corrupt: return "corrupt LZW data"
        case .endedEarly, nil: return "LZW data ends before the last pixel"
        }
    }
}
