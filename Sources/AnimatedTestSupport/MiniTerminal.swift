import AnimatedCore
import AnimatedTerminal

/// A minimal terminal for checking the cell writers: CUP, CUF, ED 2 (clear), EL (erase to the
/// end of the line), SGR (0, 7, 27, 39, 49, 38;2, 48;2, 38;5, 48;5, 30–37, 40–47, 90–97,
/// 100–107), CR, LF, the three glyphs and ASCII text (the status line); each screen cell keeps
/// what is visible in its two halves, or its character.
package struct MiniTerminal {
    package var cols: Int, rows: Int
    package var top: [UInt32], bottom: [UInt32]
    package var row = 0, col = 0, fg = CellColor.terminalDefault, bg = CellColor.terminalDefault
    package var sawTruecolor = false, sawPalette = false
    /// Per cell: the ASCII character written there (0: a glyph or nothing).
    package var text: [UInt8]
    /// SGR 7 is on (the status line).
    package var reverse = false
    /// What it could not read (a test expects none).
    package var errors: [String] = []

    package init(cols: Int, rows: Int) {
        self.cols = cols; self.rows = rows
        top = Array(repeating: CellColor.terminalDefault, count: cols * rows); bottom = top
        text = Array(repeating: 0, count: cols * rows)
    }

    /// The characters of screen row `r` (a glyph or nothing shows as a space).
    package func line(_ r: Int) -> String {
        String(decoding: text[(r * cols)..<((r + 1) * cols)].map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }

    package mutating func feed(_ b: [UInt8]) {
        var i = 0
        while i < b.count {
            if b[i] == 0x1B {
                guard i + 1 < b.count, b[i + 1] == 0x5B else { errors.append("unexpected escape at \(i)"); return }
                var j = i + 2; var params = ""
                while j < b.count, !(0x40...0x7E).contains(b[j]) { params.append(Character(UnicodeScalar(b[j]))); j += 1 }
                guard j < b.count else { errors.append("unterminated CSI"); return }
                csi(params, b[j]); i = j + 1
            } else if b[i] == 0x0A { row += 1; col = 0; i += 1
            } else if b[i] == 0x0D { col = 0; i += 1
            } else if b[i] == 0x20 { put(bg, bg); i += 1
            } else if (0x21...0x7E).contains(b[i]) {
                let at = row * cols + col
                put(bg, bg)
                if at < text.count { text[at] = b[i] }
                i += 1
            } else {
                guard i + 3 <= b.count else { errors.append("truncated glyph"); return }
                let glyph = Array(b[i..<(i + 3)]); i += 3
                switch glyph {
                case [0xE2, 0x96, 0x80]: put(fg, bg)
                case [0xE2, 0x96, 0x84]: put(bg, fg)
                case [0xE2, 0x96, 0x88]: put(fg, fg)
                default: errors.append("unexpected bytes \(glyph)")
                }
            }
        }
    }

    package mutating func put(_ t: UInt32, _ b: UInt32) {
        guard row < rows, col < cols else { errors.append("write outside the screen at \(row),\(col)"); return }
        top[row * cols + col] = t; bottom[row * cols + col] = b; text[row * cols + col] = 0; col += 1
    }

    private mutating func erase(_ range: Range<Int>) {
        for k in range { top[k] = bg; bottom[k] = bg; text[k] = 0 }
    }

    package mutating func csi(_ p: String, _ final: UInt8) {
        let n = p.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        switch final {
        case 0x48: row = max(1, n[0]) - 1; col = max(1, n.count > 1 ? n[1] : 1) - 1
        case 0x43: col += max(1, p.isEmpty ? 1 : n[0])
        case 0x4A where n.first == 2: erase(0..<(rows * cols))
        case 0x4B where p.isEmpty || n.first == 0: if row < rows { erase((row * cols + min(col, cols))..<((row + 1) * cols)) }
        case 0x6D:
            var k = 0
            if p.isEmpty { fg = CellColor.terminalDefault; bg = CellColor.terminalDefault; reverse = false }
            while k < n.count && !p.isEmpty {
                switch n[k] {
                case 0: fg = CellColor.terminalDefault; bg = CellColor.terminalDefault; reverse = false
                case 7: reverse = true
                case 27: reverse = false
                case 39: fg = CellColor.terminalDefault
                case 49: bg = CellColor.terminalDefault
                case 38, 48:
                    let isForeground = n[k] == 38
                    let v: UInt32
                    if n[k + 1] == 2 { v = UInt32(n[k + 2] << 16 | n[k + 3] << 8 | n[k + 4]); k += 4; sawTruecolor = true }
                    else { v = UInt32(n[k + 2]); k += 2; sawPalette = true }
                    if isForeground { fg = v } else { bg = v }
                case 30...37: fg = UInt32(n[k] - 30); sawPalette = true
                case 40...47: bg = UInt32(n[k] - 40); sawPalette = true
                case 90...97: fg = UInt32(n[k] - 82); sawPalette = true
                case 100...107: bg = UInt32(n[k] - 92); sawPalette = true
                default: errors.append("unexpected SGR \(n[k])")
                }
                k += 1
            }
        default: errors.append("unexpected CSI final \(final)")
        }
    }

    /// What `grid` placed at (r0, c0) should look like.
    package func matches(_ g: CellGrid, row r0: Int, column c0: Int) -> Bool {
        for r in 0..<g.rows {
            for c in 0..<g.columns {
                let i = r * g.columns + c, s = (r0 + r) * cols + c0 + c
                let f = g.foregrounds[i], b = g.backgrounds[i]
                let (t, bo): (UInt32, UInt32)
                switch CellGlyph(rawValue: g.glyphs[i])! {
                case .space: (t, bo) = (b, b)
                case .upper: (t, bo) = (f, b)
                case .lower: (t, bo) = (b, f)
                }
                if top[s] != t || bottom[s] != bo { return false }
            }
        }
        return true
    }
}
