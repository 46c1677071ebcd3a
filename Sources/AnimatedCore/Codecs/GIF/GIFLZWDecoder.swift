/// LZW decoding of a GIF frame's image data (minimum code sizes 2...8) into its colour indices.
///
/// Why not giflib's `DGifGetLine`: it walks each code's prefix chain onto a stack and pops the
/// stack a pixel at a time — 90 % of the CPU of decoding the 300-frame 1280×720 benchmark GIF
/// (5.4 ns a pixel). Here every table entry is a place in the indices decoded so far: an entry
/// is the previous code's string followed by the first index of the next, and the two were
/// written side by side. A code is then one short forward copy, eight bytes at a time. The price
/// is the frame's indices kept whole (`pixels` bytes, a quarter of its canvas) instead of a row,
/// in pages of their own (from malloc, a freed block of a frame's size would raise glibc's mmap
/// threshold, and smaller blocks would then stay resident in the heap).
/// giflib still reads the file's records; images whose minimum code size is below 2 keep its
/// decoder (what browsers show for those, as the corpus has it, is what giflib makes of them).
///
/// The semantics are browsers' (Chromium's GIF decoder, Wuffs): a code not in the table yet, or
/// a first code after a clear that is not a literal, ends the frame there (giflib would decode
/// on past it, making strings from stale tables); the end code, or the end of the data, before
/// the last pixel ends it too; nothing after the last pixel is read. The table stops growing at
/// 4096 entries (a "deferred clear"), the code width at 12 bits. A sub-block cut off by the end
/// of the file contributes the bytes that exist.
///
/// Resumable: `decode(upTo:)` makes indices in steps, so that a caller can draw rows while
/// they are still in the cache.
final class GIFLZWDecoder {
    /// Why decoding ended before the last pixel.
    enum Stop: Equatable {
        /// A code not yet in the table, or a non-literal first code after a clear.
        case invalidCode
        /// The end code.
        case endCode
        /// The sub-blocks ended (a zero size).
        case dataEnded
        /// The file ended.
        case truncated
        /// Reading the file failed (`input.ioError`).
        case readFailed
    }

    /// The indices made so far (`made` of them are the frame's; bytes after may be scratch).
    var indices: UnsafePointer<UInt8> { UnsafePointer(out) }
    /// Indices made so far, at most `pixels`.
    var made: Int { min(pos, pixels) }
    /// Set when decoding ended before `pixels` indices.
    private(set) var stop: Stop?

    /// Longest string a code can stand for (one more than the table's entries), and the bytes a
    /// copy of eight at a time may write past a string's end.
    private static let slack = 4096 + 8
    /// Sub-block payloads gathered per read: room for at least one more 255-byte block.
    private static let chunkCapacity = 4096

    private var out: UnsafeMutablePointer<UInt8>
    private var outCapacity: Int
    /// Where each code's string lies in `out`, and its length (codes above the end code).
    private let start = UnsafeMutablePointer<Int>.allocate(capacity: 4096)
    private let length = UnsafeMutablePointer<Int>.allocate(capacity: 4096)
    /// Sub-block payloads, back to back.
    private let data = UnsafeMutablePointer<UInt8>.allocate(capacity: chunkCapacity)
    private var dataIndex = 0, dataCount = 0
    private var input: GIFInput?
    /// No more sub-blocks to read (the chain or the file ended, or a read failed).
    private var chainEnded: Stop?

    private var pixels = 0, pos = 0
    private var minimumCodeSize = 0, width = 0, next = 0
    private var bits: UInt64 = 0, bitCount = 0
    /// The previous code's string (`previousStart` < 0: none since the last clear).
    private var previousStart = -1, previousLength = 0

    init() {
        outCapacity = 0
        out = ScratchPages.allocate(bytes: 0).bindMemory(to: UInt8.self, capacity: 0)
    }

    deinit {
        ScratchPages.deallocate(out, bytes: outCapacity)
        start.deallocate(); length.deallocate(); data.deallocate()
    }

    /// Starts a frame whose data's first sub-block is at `input.position` (just after the
    /// code-size byte, `minimumCodeSize`, 2...8), of which `pixels` indices are wanted.
    func begin(input: GIFInput, minimumCodeSize: Int, pixels: Int) {
        precondition((2...8).contains(minimumCodeSize) && pixels >= 0)
        if pixels + Self.slack > outCapacity {
            ScratchPages.deallocate(out, bytes: outCapacity)
            outCapacity = pixels + Self.slack
            out = ScratchPages.allocate(bytes: outCapacity).bindMemory(to: UInt8.self, capacity: outCapacity)
        }
        self.input = input
        self.pixels = pixels
        self.minimumCodeSize = minimumCodeSize
        pos = 0; bits = 0; bitCount = 0
        dataIndex = 0; dataCount = 0
        chainEnded = nil; stop = nil
        clear()
    }

    private func clear() {
        width = minimumCodeSize + 1
        next = (1 << minimumCodeSize) + 2
        previousStart = -1
    }

    /// Decodes until at least `target` indices (at most `pixels`) are made or decoding stops
    /// (`stop`); returns `made`.
    func decode(upTo target: Int) -> Int {
        let target = min(target, pixels)
        guard stop == nil else { return made }
        let out = out, start = start, length = length
        let clearCode = 1 << minimumCodeSize, endCode = clearCode + 1
        var pos = pos, bits = bits, bitCount = bitCount, width = width, next = next
        var previousStart = previousStart, previousLength = previousLength
        defer {
            self.pos = pos; self.bits = bits; self.bitCount = bitCount; self.width = width; self.next = next
            self.previousStart = previousStart; self.previousLength = previousLength
        }
        while pos < target {
            if bitCount < width {
                if dataCount &- dataIndex >= 8 {
                    // Bits above `bitCount` are always the data that follows, so loading bytes
                    // already partly held ORs in the same bits again.
                    let word = UInt64(littleEndian: UnsafeRawPointer(data + dataIndex).loadUnaligned(as: UInt64.self))
                    bits |= word &<< UInt64(bitCount)
                    let n = (63 &- bitCount) &>> 3
                    dataIndex &+= n
                    bitCount &+= n &<< 3
                } else if !refillSlowly(&bits, &bitCount, width: width) {
                    stop = chainEnded ?? .dataEnded
                    break
                }
            }
            let code = Int(truncatingIfNeeded: bits & ((1 &<< UInt64(width)) &- 1))
            bits &>>= UInt64(width)
            bitCount &-= width

            let copyLength: Int, source: Int
            if code < clearCode {
                copyLength = 1; source = -1
            } else if code == clearCode {
                width = minimumCodeSize &+ 1; next = clearCode &+ 2; previousStart = -1
                continue
            } else if code == endCode {
                stop = .endCode
                break
            } else if previousStart < 0 {
                stop = .invalidCode           // a first code after a clear must be a literal
                break
            } else if code < next {
                copyLength = length[code]; source = start[code]
            } else if code == next {
                copyLength = previousLength &+ 1; source = previousStart    // KwKwK
            } else {
                stop = .invalidCode
                break
            }

            if source < 0 {
                out[pos] = UInt8(truncatingIfNeeded: code)
            } else {
                let distance = pos &- source
                if distance >= 8 || copyLength <= distance {
                    // Eight at a time, forward: every word read lies wholly before the one
                    // being written, or past the string (bytes written there are rewritten).
                    let from = UnsafeRawPointer(out + source), to = UnsafeMutableRawPointer(out + pos)
                    var i = 0
                    repeat {
                        let word = from.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                        to.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
                        i &+= 8
                    } while i < copyLength
                } else {
                    // KwKwK with a string under eight long: it repeats itself at that distance.
                    for i in 0..<copyLength { out[pos &+ i] = out[source &+ i] }
                }
            }
            if previousStart >= 0 && next < 4096 {
                start[next] = previousStart
                length[next] = previousLength &+ 1
                next &+= 1
                if next == 1 &<< width && width < 12 { width &+= 1 }
            }
            previousStart = pos; previousLength = copyLength
            pos &+= copyLength
        }
        return min(pos, pixels)
    }

    /// Adds whole bytes of data to `bits` until it holds `width` bits, reading further
    /// sub-blocks as needed; false when the data ends first.
    private func refillSlowly(_ bits: inout UInt64, _ bitCount: inout Int, width: Int) -> Bool {
        while bitCount < width {
            if dataIndex == dataCount {
                guard gather() else { return false }
            }
            bits |= UInt64(data[dataIndex]) &<< UInt64(bitCount)
            dataIndex &+= 1
            bitCount &+= 8
        }
        return true
    }

    /// Reads the next sub-blocks' payloads into `data` (the bytes before `dataIndex` are done
    /// with); false when there are none.
    private func gather() -> Bool {
        dataIndex = 0; dataCount = 0
        guard let input else { return false }
        while chainEnded == nil && dataCount + 255 <= Self.chunkCapacity {
            var size: UInt8 = 0
            guard input.read(into: &size, count: 1) == 1 else { chainEnded = .readFailed; break }
            if input.pastEnd { chainEnded = .truncated; break }
            if size == 0 { chainEnded = .dataEnded; break }
            let at = input.position
            guard input.read(into: data + dataCount, count: Int(size)) == Int(size) else { chainEnded = .readFailed; break }
            if input.pastEnd {
                // A block cut off by the end of the file: only the bytes that exist are data.
                dataCount += max(0, min(Int(size), input.source.count - at))
                chainEnded = .truncated
                break
            }
            dataCount += Int(size)
        }
        return dataCount > 0
    }
}
