import AnimatedCore

/// An sRGB colour with 8 bits per channel (e.g. a terminal's palette entry, for
/// `CellRenderer`'s 16-colour mode).
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, green and blue code values.
    public var r: UInt8, g: UInt8, b: UInt8
    /// The colour (r, g, b).
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }

    /// `#rrggbb`.
    public var description: String {
        let hex = Array("0123456789abcdef")
        var s = "#"
        for v in [r, g, b] { s.append(hex[Int(v >> 4)]); s.append(hex[Int(v & 15)]) }
        return s
    }

    /// An X11 colour spec as terminals answer colour queries: `rgb:R/G/B` with 1–4 hex digits
    /// per channel (scaled to 8 bits), `rgba:R/G/B/A`, or `#RGB` / `#RRGGBB` / `#RRRRGGGGBBBB`.
    package init?(xColorSpec spec: some StringProtocol) {
        let s = spec.lowercased()
        func scaled(_ h: Substring) -> UInt8? {
            guard (1...4).contains(h.count), let v = UInt32(h, radix: 16) else { return nil }
            let max = (UInt32(1) << (4 * UInt32(h.count))) - 1
            return UInt8((v * 255 + max / 2) / max)
        }
        if s.hasPrefix("rgb:") || s.hasPrefix("rgba:") {
            let parts = s.drop(while: { $0 != ":" }).dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3 || (parts.count == 4 && s.hasPrefix("rgba:")),
                  let r = scaled(parts[0]), let g = scaled(parts[1]), let b = scaled(parts[2]) else { return nil }
            self.init(r, g, b)
        } else if s.hasPrefix("#") {
            let h = s.dropFirst()
            guard h.count % 3 == 0, (3...12).contains(h.count) else { return nil }
            let n = h.count / 3
            let a = h.startIndex, b1 = h.index(a, offsetBy: n), b2 = h.index(b1, offsetBy: n)
            // "#RGB" style specs hold the most significant digits: #f00 is #f00000-ish in X11,
            // but every terminal that answers this way means full scale; scale like rgb:.
            guard let r = scaled(h[a..<b1]), let g = scaled(h[b1..<b2]), let b = scaled(h[b2...]) else { return nil }
            self.init(r, g, b)
        } else {
            return nil
        }
    }

    /// Relative luminance in 0...1 (linear light, Rec. 709 weights).
    package var luminance: Float {
        let lin = SRGBTables.shared.toLinear
        return 0.2126 * lin[Int(r)] + 0.7152 * lin[Int(g)] + 0.0722 * lin[Int(b)]
    }
}

/// What the terminal said about itself in one round of queries (see `TerminalQueries` and
/// `TerminalReplyParser`). Every field is optional knowledge: a terminal that answered nothing
/// leaves the report empty, and the policy (which output, which background) is the caller's.
package struct TerminalReport: Sendable, Equatable {
    /// The queries were written and the replies read (false: no tty, not in the foreground,
    /// or probing was skipped).
    package var probed = false
    /// Primary device attributes answered (every real terminal does: it is the sentinel).
    package var answeredDA1 = false
    /// The DA1 attributes (after the leading `?`), e.g. [62, 4, 22]; the first reply's.
    package var da1Attributes: [Int] = []
    /// DA1 replies seen (inside tmux two are expected: tmux's own and the outer terminal's
    /// through passthrough).
    package var da1Count = 0
    /// Every DA1 reply's attributes, in order (inside tmux: tmux's, then the outer terminal's).
    package var da1Replies: [[Int]] = []
    /// kitty graphics replies by image id (`i=`): "OK" or an error such as "EINVAL:...".
    package var kittyReplies: [UInt32: String] = [:]
    /// XTVERSION reply text, e.g. "kitty(0.26.5)", "XTerm(379)", "tmux 3.4".
    package var version: String?
    /// XTSMGRAPHICS: number of sixel colour registers (when the terminal answered success).
    package var colorRegisters: Int?
    /// XTSMGRAPHICS: the largest sixel image the terminal draws, in pixels (xterm's
    /// `maxGraphicSize`; it drops larger images whole). nil: not answered, or not a size
    /// (a zero, a missing or extra value, a failure status).
    package var sixelMaxSize: PixelSize?
    /// Cell size in pixels from `CSI 16 t`.
    package var reportedCellPixels: PixelSize?
    /// The tty's window size in pixels from TIOCGWINSZ (nil when the kernel says 0).
    package var windowPixels: PixelSize?
    /// The window size in cells from TIOCGWINSZ (0 when unknown).
    package var windowColumns = 0, windowRows = 0
    /// OSC 11 (default background) and OSC 10 (default foreground).
    package var background: RGBColor?
    package var foreground: RGBColor?
    /// OSC 4 answers for palette entries 0–15 (nil where not answered).
    package var palette16: [RGBColor?] = Array(repeating: nil, count: 16)
    /// DECRQSS's answer after a direct colour was set (see `TerminalQueries.directColorReadBack`).
    package var graphicRendition: String?
    /// XTGETTCAP answers: capability name → value ("" for a boolean one); unknown ones absent.
    package var capabilities: [String: String] = [:]
    /// The probe ran inside tmux (TMUX set) and wrapped the graphics queries for passthrough.
    package var insideTmux = false
    /// Time from the first query to the last reply or the deadline, in nanoseconds.
    package var elapsedNanoseconds: UInt64 = 0

    package init() {}

    /// The terminal answered the kitty graphics query (image id `TerminalQueries.kittyQueryID`) with OK.
    package var kittyGraphics: Bool { kittyReplies[TerminalQueries.kittyQueryID] == "OK" }
    /// DA1 attribute 4: sixel graphics (in the first reply: the terminal written to, tmux
    /// inside tmux; the outer terminal's attributes are `da1Replies.last`).
    package var sixel: Bool { da1Attributes.contains(4) }
    /// The full 16-colour palette when every entry was answered.
    package var answeredPalette16: [RGBColor]? {
        let p = palette16.compactMap { $0 }
        return p.count == 16 ? p : nil
    }
    /// Cell size in pixels: from the kernel's window size when it knows pixels, else `CSI 16 t`.
    package var cellPixelSize: PixelSize? {
        if let w = windowPixels, windowColumns > 0, windowRows > 0,
           w.width >= windowColumns, w.height >= windowRows {
            return PixelSize(width: w.width / windowColumns, height: w.height / windowRows)
        }
        return reportedCellPixels
    }

    /// Whether the terminal keeps 24-bit colour: the colour set was read back as direct colour,
    /// or XTGETTCAP knows `RGB` or `Tc`. nil: it did not say.
    package var directColor: Bool? {
        if capabilities["RGB"] != nil || capabilities["Tc"] != nil { return true }
        guard let sgr = graphicRendition else { return nil }
        return Self.echoesDirectColor(sgr)
    }

    /// Colours the terminal says it has: XTGETTCAP `colors`, or 256 when the direct colour
    /// came back as a 256-colour index (`38;5;N`); nil when it did not say.
    package var answeredColors: Int? {
        if let c = capabilities["colors"].flatMap({ Int($0) }), c > 0 { return c }
        if let sgr = graphicRendition, Self.fields(sgr).starts(with: [38, 5]) || sgr.contains("38;5;") || sgr.contains("38:5:") {
            return 256
        }
        return nil
    }

    /// The SGR parameters as numbers, `;` and `:` alike separating them (empty fields nil).
    static func fields(_ sgr: String) -> [Int?] {
        sgr.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ";" || $0 == ":" }).map { Int($0) }
    }

    /// `38:2::1:2:3`, `38:2:1:2:3` or `38;2;1;2;3` among the parameters (the colour set).
    static func echoesDirectColor(_ sgr: String) -> Bool {
        let f = fields(sgr)
        for i in f.indices where f[i] == 38 && i + 1 < f.count && f[i + 1] == 2 {
            let rest = f[(i + 2)...].prefix(4)
            let values = (rest.first ?? nil) == nil ? Array(rest.dropFirst()) : Array(rest.prefix(3))
            if values.prefix(3) == [1, 2, 3] { return true }
        }
        return false
    }

    /// Folds one parsed reply into the report (key presses are not replies: ignored here).
    package mutating func apply(_ event: TerminalReplyParser.Event) {
        switch event {
        case .primaryDeviceAttributes(let attrs):
            if !answeredDA1 { da1Attributes = attrs }
            answeredDA1 = true
            da1Count += 1
            da1Replies.append(attrs)
        case .kittyGraphics(let id, let message):
            kittyReplies[id ?? 0] = message
        case .version(let v):
            // Inside tmux the outer terminal's answer (through passthrough) is the interesting one.
            if version == nil || insideTmux { version = v }
        case .graphicsAttribute(let item, let status, let values):
            if item == 1 && status == 0, let n = values.first { colorRegisters = n }
            // The first answer wins (through tmux only the outer terminal is asked).
            if item == 2 && status == 0 && values.count == 2 && values[0] > 0 && values[1] > 0 && sixelMaxSize == nil {
                sixelMaxSize = PixelSize(width: values[0], height: values[1])
            }
        case .cellPixels(let w, let h):
            if w > 0 && h > 0 { reportedCellPixels = PixelSize(width: w, height: h) }
        case .dynamicColor(let code, let c):
            // The first answer wins (inside tmux, tmux's own; see `TerminalQueries.round`).
            if code == 11 && background == nil { background = c }
            if code == 10 && foreground == nil { foreground = c }
        case .paletteColor(let i, let c):
            if (0..<16).contains(i) && palette16[i] == nil { palette16[i] = c }
        case .graphicRendition(let s):
            if graphicRendition == nil { graphicRendition = String(s.prefix(200)) }
        case .capability(let name, let value, let known):
            if known && capabilities.count < 16 { capabilities[name] = value ?? "" }
        case .keys, .otherReply:
            break
        }
    }

    /// One line per fact, for `animplay probe` and debugging.
    package var lines: [String] {
        func opt<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "-" }
        var out = [
            "probed: \(probed)",
            "answered DA1: \(answeredDA1) \(da1Attributes.map(String.init).joined(separator: ";"))",
            "kitty graphics: \(kittyGraphics)\(kittyReplies.isEmpty ? "" : " (" + kittyReplies.sorted { $0.key < $1.key }.map { "i=\($0.key): \($0.value)" }.joined(separator: ", ") + ")")",
            "sixel: \(sixel)",
            "colour registers: \(opt(colorRegisters))",
            "sixel max size: \(opt(sixelMaxSize))",
            "version: \(opt(version))",
            "cell pixels: \(opt(cellPixelSize)) (CSI 16 t: \(opt(reportedCellPixels)), window pixels: \(opt(windowPixels)))",
            "background: \(opt(background))",
            "foreground: \(opt(foreground))",
            "palette 0-15: \(palette16.map { $0.map { "\($0)" } ?? "-" }.joined(separator: " "))",
            "direct colour: \(opt(directColor)) (SGR read back: \(opt(graphicRendition)); XTGETTCAP: \(capabilities.isEmpty ? "-" : capabilities.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")))",
            "colours answered: \(opt(answeredColors))",
            "inside tmux: \(insideTmux)",
            "elapsed ms: \(elapsedNanoseconds / 1_000_000)",
        ]
        if da1Count > 1 {
            out[1] += " (\(da1Count) replies: " + da1Replies.map { $0.map(String.init).joined(separator: ";") }.joined(separator: " then ") + ")"
        }
        return out
    }
}

/// A size in pixels.
package struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    package var width: Int, height: Int
    package init(width: Int, height: Int) { self.width = width; self.height = height }
    package var description: String { "\(width)x\(height)" }
}
