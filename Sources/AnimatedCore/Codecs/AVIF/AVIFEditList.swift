/// What the colour track of an AVIF image sequence says about repeating: its edit list (`moov` →
/// `trak` → `edts` → `elst`), read here because libavif 0.11 does not (libavif 1.0 added
/// `repetitionCount`; this follows its rules, which Chromium shows).
///
/// - No edit list: the count is unknown, and Chromium plays forever.
/// - An edit list without the repeat flag (bit 0 of its flags): played once.
/// - With the flag: the edit repeats to fill the track's duration (`tkhd`, in the movie's
///   timescale like the segment duration), ceil(track / segment) plays; an indefinite track
///   duration (all ones) or more plays than an Int32 holds: forever.
///
/// Whether there is an edit list at all also decides how Chromium 156 reads the colour of the
/// sequence (see `AVIFDecoder`). The colour track is the first `trak` without a `tref` box (an
/// alpha track refers to the colour track with `auxl`).
struct AVIFEditList: Equatable {
    /// The colour track has an `edts` box with an `elst`.
    var present: Bool
    /// Plays as browsers count them (0: forever).
    var plays: Int

    /// Reads the boxes of `file`; nil when there is no `moov` with a track (not a sequence) or
    /// the boxes do not fit the file.
    static func read(_ file: UnsafeRawBufferPointer) -> AVIFEditList? {
        guard let moov = AVIFBoxes.boxes(file, in: 0..<file.count).first(where: { $0.type == "moov" }) else { return nil }
        for trak in AVIFBoxes.boxes(file, in: moov.body) where trak.type == "trak" {
            let children = AVIFBoxes.boxes(file, in: trak.body)
            if children.contains(where: { $0.type == "tref" }) { continue }
            guard let tkhd = children.first(where: { $0.type == "tkhd" }) else { return nil }
            guard let edts = children.first(where: { $0.type == "edts" }),
                  let elst = AVIFBoxes.boxes(file, in: edts.body).first(where: { $0.type == "elst" }) else {
                return AVIFEditList(present: false, plays: 0)
            }
            return AVIFEditList(present: true, plays: plays(file, elst: elst.body, tkhd: tkhd.body))
        }
        return nil
    }

    /// libavif 1.x's `avifParseEditListBox` and repetition count, as plays (0: forever).
    private static func plays(_ f: UnsafeRawBufferPointer, elst: Range<Int>, tkhd: Range<Int>) -> Int {
        guard elst.count >= 8 else { return 0 }
        let version = f[elst.lowerBound]
        let repeats = f[elst.lowerBound + 3] & 1 != 0
        guard repeats else { return 1 }
        guard AVIFBoxes.be(f, elst.lowerBound + 4, 4) == 1 else { return 0 }      // libavif refuses other counts
        let segment: UInt64
        switch version {
        case 0: guard elst.count >= 12 else { return 0 }; segment = AVIFBoxes.be(f, elst.lowerBound + 8, 4)
        case 1: guard elst.count >= 16 else { return 0 }; segment = AVIFBoxes.be(f, elst.lowerBound + 8, 8)
        default: return 0
        }
        guard segment > 0, tkhd.count >= 4 else { return 0 }
        let duration: UInt64
        if f[tkhd.lowerBound] == 1 {
            guard tkhd.count >= 36 else { return 0 }
            duration = AVIFBoxes.be(f, tkhd.lowerBound + 28, 8)
        } else {
            guard tkhd.count >= 24 else { return 0 }
            let d = AVIFBoxes.be(f, tkhd.lowerBound + 20, 4)
            duration = d == 0xFFFF_FFFF ? UInt64.max : d
        }
        guard duration != UInt64.max, duration > 0 else { return 0 }
        let count = duration / segment + (duration % segment != 0 ? 1 : 0)
        return count > UInt64(Int32.max) ? 0 : Int(count)
    }
}
