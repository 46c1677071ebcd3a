/// Whether the terminal can show a symbol set's glyphs, and the finest set it can.
///
/// Sextants (Unicode 13) and octants (Unicode 16) are missing from most fonts (Debian 12's
/// DejaVu has neither), and a missing glyph is a box of tofu in every cell. Nothing in the
/// terminal protocol tells whether a glyph will be drawn, so the answer combines two facts:
/// terminals known to draw the block glyphs themselves, by their XTVERSION answer (kitty draws
/// sextants since 0.19 and octants since 0.40), and the fonts installed where animplay runs,
/// which are the terminal's fonts unless the terminal is on another machine (ssh). Quadrants
/// and half blocks are in every common monospace font.
package enum SymbolSupport {
    /// The first code point of each set's own block (what a font must have).
    package static func probeScalar(_ set: SymbolSet) -> UInt32? {
        switch set {
        case .octant: 0x1CD00
        case .sextant: 0x1FB00
        case .half, .quadrant: nil
        }
    }

    /// kitty's version from its XTVERSION answer `kitty(0.26.5)`, as (major, minor).
    static func kittyVersion(_ version: String?) -> (Int, Int)? {
        guard let v = version, v.hasPrefix("kitty("), v.hasSuffix(")") else { return nil }
        let n = v.dropFirst(6).dropLast().split(separator: ".").compactMap { Int($0) }
        return n.count >= 2 ? (n[0], n[1]) : nil
    }

    /// Whether the terminal named by `version` draws `set` without a font.
    package static func drawnByTerminal(_ set: SymbolSet, version: String?) -> Bool {
        guard let k = kittyVersion(version) else { return false }
        switch set {
        case .half, .quadrant: return true
        case .sextant: return k >= (0, 19)
        case .octant: return k >= (0, 40)
        }
    }

    /// The finest set at most as fine as `requested` that will show: drawn by the terminal,
    /// or in a font (`fontHas`: nil when unknown, e.g. over ssh, which keeps the request).
    package static func usable(_ requested: SymbolSet, version: String?, fontHas: (UInt32) -> Bool?) -> SymbolSet {
        let order: [SymbolSet] = [.octant, .sextant, .quadrant]
        for set in order.drop(while: { $0 != requested }) {
            guard let scalar = probeScalar(set) else { return set }
            if drawnByTerminal(set, version: version) || fontHas(scalar) != false { return set }
        }
        return requested
    }
}
