import AnimatedCore

/// The bytes of the one round of terminal queries (see `TerminalReplyParser` for the answers).
///
/// Order matters: DA1 goes last because every terminal answers it and answers in order, so
/// its reply means every other reply that will come has come (the sentinel). Queries a
/// terminal does not know are ignored by it (ECMA-48 string and control-sequence syntax).
package enum TerminalQueries {
    /// Image id of the kitty graphics support query (`a=q`; nothing is stored or shown).
    package static let kittyQueryID: UInt32 = 31

    package static let esc: UInt8 = 0x1B
    /// String terminator `ESC \`.
    static let st: [UInt8] = [0x1B, 0x5C]

    /// kitty graphics: query support with a 1×1 RGB pixel; the answer is `OK` or an error.
    package static let kittyGraphics: [UInt8] = Array("\u{1B}_Gi=\(kittyQueryID),s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\".utf8)
    /// XTVERSION: `DCS > | name(version) ST`.
    package static let xtversion: [UInt8] = Array("\u{1B}[>q".utf8)
    /// XTSMGRAPHICS: read the number of sixel colour registers.
    package static let colorRegisters: [UInt8] = Array("\u{1B}[?1;1;0S".utf8)
    /// XTSMGRAPHICS: read the largest sixel image the terminal accepts, `width ; height` in
    /// pixels (item 2, action 4). xterm drops a sixel image larger than this whole (its
    /// `maxGraphicSize`, 1000x1000 by default, smaller than many windows). Not the current value
    /// (action 1): xterm answers that with the window size capped at the maximum, other
    /// terminals with their window, so it says nothing about what is refused.
    package static let sixelMaxGeometry: [UInt8] = Array("\u{1B}[?2;4;0S".utf8)
    /// Cell size in pixels: `CSI 6 ; height ; width t`.
    package static let cellPixels: [UInt8] = Array("\u{1B}[16t".utf8)
    /// OSC 10 / OSC 11: default foreground / background.
    package static let foreground: [UInt8] = Array("\u{1B}]10;?\u{1B}\\".utf8)
    package static let background: [UInt8] = Array("\u{1B}]11;?\u{1B}\\".utf8)
    /// OSC 4: palette entry `i` (one entry per query: not every terminal takes several).
    package static func paletteEntry(_ i: Int) -> [UInt8] { Array("\u{1B}]4;\(i);?\u{1B}\\".utf8) }
    /// Colour depth: set a direct colour (1, 2, 3), read the attributes back with DECRQSS
    /// (`DCS $ q m ST`), reset them. A terminal that keeps direct colour echoes `38:2…1:2:3`
    /// (xterm, kitty); one that maps it to its palette echoes `38;5;N` (mlterm: 256 colours).
    package static let directColorReadBack: [UInt8] = Array("\u{1B}[38;2;1;2;3m\u{1B}P$qm\u{1B}\\\u{1B}[m".utf8)
    /// XTGETTCAP for one terminfo capability (the name in hex): `RGB`, `Tc`, `colors`.
    package static func capability(_ name: String) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("\u{1B}P+q".utf8)
        for b in name.utf8 { out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)]) }
        return out + st
    }
    /// What the colour-depth part of the round asks (not through tmux: tmux's own colours are
    /// what cells reach).
    package static let colorDepth: [[UInt8]] = [directColorReadBack, capability("RGB"), capability("Tc"), capability("colors")]

    /// DA1, the sentinel.
    package static let primaryDeviceAttributes: [UInt8] = Array("\u{1B}[c".utf8)

    /// tmux passthrough: `ESC Ptmux; <sequence with every ESC doubled> ESC \`. tmux forwards
    /// the sequence to the outer terminal when its `allow-passthrough` option is on, and drops
    /// it otherwise.
    package static func tmuxPassthrough(_ sequence: [UInt8]) -> [UInt8] {
        var out = Array("\u{1B}Ptmux;".utf8)
        for b in sequence {
            if b == esc { out.append(esc) }
            out.append(b)
        }
        out += st
        return out
    }

    /// The whole round, one complete sequence per element (written whole, never cut).
    ///
    /// - `insideTmux`: tmux answers DA1 and XTVERSION itself (and, in recent versions, the
    ///   colour queries), but graphics facts (kitty, sixel, registers, cell pixels) and the real
    ///   colours are the outer terminal's: after tmux's own round, the same queries go again
    ///   through passthrough, ending with a second DA1. Two DA1 replies end the round (or the
    ///   deadline, when passthrough is off). The first answer to a colour query wins (tmux's,
    ///   which knows a pane's own colours), the outer terminal's fills in what tmux did not say.
    /// - `colorQueries`: OSC 10/11 and OSC 4 0–15.
    /// - `extra`: further queries (e.g. more kitty `a=q` probes with other ids) sent before the
    ///   sentinel, wrapped for tmux like the graphics queries.
    package static func round(insideTmux: Bool, colorQueries: Bool = true, graphicsQueries: Bool = true,
                             extra: [[UInt8]] = []) -> [[UInt8]] {
        var colors: [[UInt8]] = []
        if colorQueries {
            colors = [background, foreground]
            for i in 0..<16 { colors.append(paletteEntry(i)) }
        }
        let depth = colorQueries ? colorDepth : []
        let graphics = (graphicsQueries ? [kittyGraphics, colorRegisters, sixelMaxGeometry, cellPixels] : []) + extra
        if insideTmux {
            let outer = graphics + colors + [xtversion, primaryDeviceAttributes]
            return colors + depth + [xtversion, primaryDeviceAttributes] + outer.map(tmuxPassthrough)
        }
        return colors + depth + graphics + [xtversion, primaryDeviceAttributes]
    }

    /// DA1 replies that end the round.
    package static func expectedDA1(insideTmux: Bool) -> Int { insideTmux ? 2 : 1 }
}
