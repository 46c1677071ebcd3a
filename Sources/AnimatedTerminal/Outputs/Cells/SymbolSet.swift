import AnimatedCore

/// Which block glyphs cells are drawn with: each glyph splits its cell into a grid of
/// sub-pixels, every sub-pixel in the foreground or the background colour.
///
/// A cell's glyph is stored as a coverage mask: bit `row * columns + column` is set where
/// the foreground shows (row-major from the top-left). For `half` that makes bit 0 the upper
/// half and bit 1 the lower half, the raw values of `CellGlyph.upper` and `.lower`.
public enum SymbolSet: String, Sendable, CaseIterable {
    /// ▀ ▄ (1×2): every font has them.
    case half
    /// Quadrants U+2596–U+259F with ▀ ▄ ▌ ▐ █ (2×2).
    case quadrant
    /// Sextants U+1FB00–U+1FB3B (Unicode 13) with ▌ ▐ █ (2×3).
    case sextant
    /// Octants U+1CD00–U+1CDE5 (Unicode 16) and the 26 patterns encoded elsewhere (2×4).
    case octant

    /// Sub-pixels per cell, across and down.
    package var columns: Int { self == .half ? 1 : 2 }
    /// Sub-pixel rows per cell.
    package var rows: Int {
        switch self {
        case .half, .quadrant: return 2
        case .sextant: return 3
        case .octant: return 4
        }
    }
    /// Sub-pixels per cell.
    package var count: Int { columns * rows }
    /// The mask of a cell entirely in the foreground colour.
    package var fullMask: UInt8 { UInt8(truncatingIfNeeded: (1 << count) - 1) }

    /// The character drawing coverage `mask` (foreground where bits are set).
    package func scalar(_ mask: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(SymbolTables.scalars[index][Int(mask & fullMask)])!
    }

    /// The UTF-8 bytes of `scalar(mask)`.
    @inline(__always)
    func utf8(_ mask: UInt8) -> ArraySlice<UInt8> {
        let t = SymbolTables.shared
        let k = index * 256 + Int(mask & fullMask)
        let start = Int(t.utf8Offsets[k])
        return t.utf8Bytes[start..<(start + Int(t.utf8Lengths[k]))]
    }

    var index: Int {
        switch self {
        case .half: return 0
        case .quadrant: return 1
        case .sextant: return 2
        case .octant: return 3
        }
    }

    /// The symbol set and mask that draw `scalar`, searching from the coarsest set (so ▀ is
    /// half-block mask 1); nil when it is not a block glyph of these sets.
    package static func coverage(of scalar: Unicode.Scalar) -> (SymbolSet, UInt8)? {
        for set in allCases {
            let table = SymbolTables.scalars[set.index]
            if let m = table.firstIndex(of: scalar.value), m <= Int(set.fullMask) { return (set, UInt8(m)) }
        }
        return nil
    }
}

/// The glyph tables: for each symbol set, the code point of every coverage mask.
enum SymbolTables {
    static let space: UInt32 = 0x20, full: UInt32 = 0x2588

    /// Code points by set index and mask (256 entries per set; masks past `fullMask` unused).
    static let scalars: [[UInt32]] = [half, quadrant, sextant, octant].map { $0 + Array(repeating: space, count: 256 - $0.count) }

    static let half: [UInt32] = [space, 0x2580, 0x2584, full]

    /// Bits: 0 upper left, 1 upper right, 2 lower left, 3 lower right.
    static let quadrant: [UInt32] = [
        space, 0x2598, 0x259D, 0x2580, 0x2596, 0x258C, 0x259E, 0x259B,
        0x2597, 0x259A, 0x2590, 0x259C, 0x2584, 0x2599, 0x259F, full,
    ]

    /// U+1FB00 is BLOCK SEXTANT-1: the block lists the patterns 1…62 in mask order, leaving
    /// out the two that were already encoded, left half (sextants 1-3-5, mask 21) and right
    /// half (2-4-6, mask 42).
    static let sextant: [UInt32] = {
        var t = [UInt32](repeating: space, count: 64)
        var next: UInt32 = 0x1FB00
        for m in 1..<63 where m != 21 && m != 42 { t[m] = next; next += 1 }
        t[21] = 0x258C; t[42] = 0x2590; t[63] = full
        return t
    }()

    /// U+1CD00 is BLOCK OCTANT-3: the block lists the 2×4 patterns in mask order, leaving out
    /// the 26 encoded elsewhere (Unicode 16.0 UnicodeData and the U+1CD00 chart).
    static let octantElsewhere: [UInt8: UInt32] = [
        0x00: space, 0xFF: full,
        0x0F: 0x2580, 0xF0: 0x2584, 0x55: 0x258C, 0xAA: 0x2590,          // halves
        0x05: 0x2598, 0x0A: 0x259D, 0x50: 0x2596, 0xA0: 0x2597,          // quadrants
        0xF5: 0x2599, 0xA5: 0x259A, 0x5F: 0x259B, 0xAF: 0x259C, 0x5A: 0x259E, 0xFA: 0x259F,
        0x03: 0x1FB82, 0x3F: 0x1FB85, 0xC0: 0x2582, 0xFC: 0x2586,        // upper/lower quarters
        0x14: 0x1FBE6, 0x28: 0x1FBE7,                                    // middle left/right quarter
        0x01: 0x1CEA8, 0x02: 0x1CEAB, 0x40: 0x1CEA3, 0x80: 0x1CEA0,      // single corner octants
    ]

    static let octant: [UInt32] = {
        var t = [UInt32](repeating: space, count: 256)
        var next: UInt32 = 0x1CD00
        for m in 0..<256 {
            if let c = octantElsewhere[UInt8(m)] { t[m] = c } else { t[m] = next; next += 1 }
        }
        return t
    }()

    /// UTF-8 of every table entry, flattened for the cell writer (no per-cell allocation).
    final class Encoded: @unchecked Sendable {   // immutable after init
        let utf8Bytes: [UInt8]
        let utf8Offsets: [UInt16]
        let utf8Lengths: [UInt8]
        init() {
            var bytes: [UInt8] = [], offsets: [UInt16] = [], lengths: [UInt8] = []
            for table in SymbolTables.scalars {
                for c in table {
                    let s = Array(String(Character(Unicode.Scalar(c)!)).utf8)
                    offsets.append(UInt16(bytes.count)); lengths.append(UInt8(s.count))
                    bytes += s
                }
            }
            utf8Bytes = bytes; utf8Offsets = offsets; utf8Lengths = lengths
        }
    }
    static let shared = Encoded()
}
