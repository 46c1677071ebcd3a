import AnimatedCore

/// Splits the bytes read from a terminal's input while queries are outstanding into replies
/// and key presses.
///
/// The stream is what the tty delivers: replies may be split across reads, and the user may
/// type at any moment, so keys can sit between (never inside) replies. Feed chunks as they
/// arrive; `finish()` at the deadline flushes what is left. Classification:
/// - OSC (`ESC ]`), DCS (`ESC P`), APC (`ESC _`), SOS/PM (`ESC X`, `ESC ^`) strings, ended by
///   ST (`ESC \`) or BEL, are replies: keyboards do not send them. The ones the probe asks for
///   are decoded (OSC 4/10/11, XTVERSION, kitty graphics); the others become `.otherReply`.
/// - CSI sequences are replies only in the forms terminals answer with: `CSI ? … c` (DA1),
///   `CSI ? … S` (XTSMGRAPHICS), `CSI … t` (window reports). Everything else (arrows, function
///   keys, `CSI … ~`, kitty keyboard `CSI … u`) is a key press and keeps its bytes.
/// - `ESC O x` (SS3 keys), `ESC x` (Alt+x) and every other byte are key presses.
/// - A sequence cut off by the deadline (a slow terminal, or a user's Alt+] that looks like an
///   OSC opener) is dropped, never handed on as keys; a lone ESC at the end is the Esc key.
/// Sequences longer than `maxSequence` bytes are dropped (bounded memory on hostile input).
package struct TerminalReplyParser: Sendable {
    package enum Event: Sendable, Equatable {
        /// DA1: `CSI ? attrs c`.
        case primaryDeviceAttributes([Int])
        /// kitty graphics: `APC G i=ID[,…] ; MESSAGE ST`.
        case kittyGraphics(id: UInt32?, message: String)
        /// XTVERSION: `DCS > | TEXT ST`.
        case version(String)
        /// XTSMGRAPHICS: `CSI ? item ; status ; values… S` (item 1: colour registers, one value;
        /// item 2: sixel geometry, width and height; status 0: success). Numbers above 2^30 are
        /// read as 2^30.
        case graphicsAttribute(item: Int, status: Int, values: [Int])
        /// `CSI 6 ; height ; width t`: cell size in pixels.
        case cellPixels(width: Int, height: Int)
        /// OSC 10/11/12: default foreground, background, cursor colour.
        case dynamicColor(code: Int, RGBColor)
        /// OSC 4: one palette entry.
        case paletteColor(index: Int, RGBColor)
        /// DECRQSS of SGR: `DCS 1 $ r PARAMS m ST` (the attributes in effect, as the terminal
        /// holds them).
        case graphicRendition(String)
        /// XTGETTCAP: `DCS 1 + r HEXNAME = HEXVALUE ST` (value nil for a boolean capability),
        /// or `DCS 0 + r … ST`, which `known` false reports.
        case capability(name: String, value: String?, known: Bool)
        /// Bytes the user typed (to hand to the key handler, or drop).
        case keys([UInt8])
        /// A reply the probe did not ask for or cannot use.
        case otherReply
    }

    package static let maxSequence = 4096

    private enum State: Sendable { case ground, escape, csi, ss3, string(UInt8), stringEscape(UInt8) }
    private var state = State.ground
    private var buffer: [UInt8] = []   // the sequence in progress, from its ESC
    private var keys: [UInt8] = []     // plain bytes not yet emitted
    private var overflow = false       // the sequence in progress outgrew `maxSequence`

    package init() {}

    /// True between the ESC that opens a sequence and its end.
    package var isInsideSequence: Bool {
        if case .ground = state { return false }
        return true
    }

    /// True when the last byte was an ESC that nothing has followed yet.
    package var isAtLoneEscape: Bool {
        if case .escape = state { return true }
        return false
    }

    /// Forgets a sequence in progress (one that stopped arriving).
    package mutating func reset() {
        state = .ground; buffer = []; overflow = false
    }

    /// Parses the next bytes; returns the events completed by them, in order.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes { step(byte, &events) }
        flushKeys(&events)
        return events
    }

    /// The end of input: a pending lone ESC is the Esc key; any other unfinished sequence is dropped.
    package mutating func finish() -> [Event] {
        var events: [Event] = []
        switch state {
        case .escape: keys.append(0x1B)
        // A cut-off CSI or SS3 is far more likely a late reply than half a key (keyboards
        // write a key in one piece): dropped with the rest.
        default: break
        }
        state = .ground; buffer = []; overflow = false
        flushKeys(&events)
        return events
    }

    private mutating func flushKeys(_ events: inout [Event]) {
        if !keys.isEmpty { events.append(.keys(keys)); keys = [] }
    }

    private mutating func step(_ b: UInt8, _ events: inout [Event]) {
        switch state {
        case .ground:
            if b == 0x1B { state = .escape; buffer = [b] } else { keys.append(b) }
        case .escape:
            buffer.append(b)
            switch b {
            case UInt8(ascii: "["): state = .csi
            case UInt8(ascii: "O"): state = .ss3
            case UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "X"), UInt8(ascii: "^"):
                flushKeys(&events)
                state = .string(b)
            case 0x1B:
                // ESC ESC: the first was the Esc key (or Alt+Esc); the second starts anew.
                keys.append(0x1B); buffer = [b]
            default:
                keys.append(contentsOf: buffer); buffer = []; state = .ground   // Alt+key
            }
        case .ss3:
            buffer.append(b)
            keys.append(contentsOf: buffer); buffer = []; state = .ground
        case .csi:
            append(b)
            if (0x40...0x7E).contains(b) {
                if overflow {
                    events.append(.otherReply)
                } else if let e = Self.csiReply(buffer) {
                    flushKeys(&events); events.append(e)
                } else {
                    keys.append(contentsOf: buffer)
                }
                buffer = []; overflow = false; state = .ground
            } else if !(0x20...0x3F).contains(b) {
                // Not a CSI after all (a control byte inside): hand everything on as keys.
                keys.append(contentsOf: buffer); buffer = []; state = .ground
            }
        case .string(let kind):
            if b == 0x07 {
                endString(kind, &events)
            } else if b == 0x1B {
                state = .stringEscape(kind)
            } else {
                append(b)
            }
        case .stringEscape(let kind):
            if b == UInt8(ascii: "\\") {
                endString(kind, &events)
            } else {
                // ESC inside a string without `\`: the string was cut off; restart at this ESC.
                buffer = [0x1B]; overflow = false; state = .escape
                step(b, &events)
            }
        }
    }

    /// Keeps at most `maxSequence` bytes of a sequence; a longer one is consumed to its end
    /// and reported as `.otherReply` (never as keys).
    private mutating func append(_ b: UInt8) {
        if buffer.count < Self.maxSequence { buffer.append(b) } else { overflow = true }
    }

    private mutating func endString(_ kind: UInt8, _ events: inout [Event]) {
        events.append(overflow ? .otherReply : Self.stringReply(kind, buffer.dropFirst(2)))
        buffer = []; overflow = false; state = .ground
    }

    /// Text from hex digits (XTGETTCAP), nil when malformed; printable ASCII only is kept.
    static func unhex(_ s: some StringProtocol) -> String? {
        let d = Array(s.utf8)
        guard d.count % 2 == 0, d.count <= 128 else { return nil }
        var out = ""
        var i = 0
        while i < d.count {
            guard let v = UInt8(String(decoding: d[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
            out.unicodeScalars.append((0x20..<0x7F).contains(v) ? Unicode.Scalar(v) : "?")
            i += 2
        }
        return out
    }

    /// Numbers separated by `;` (empty fields are 0; sub-parameters after `:` ignored).
    static func numbers(_ s: some Collection<UInt8>) -> [Int] {
        var out: [Int] = [], cur = 0, sub = false
        for c in s {
            if c == UInt8(ascii: ";") { out.append(cur); cur = 0; sub = false }
            else if c == UInt8(ascii: ":") { sub = true }
            else if !sub, (0x30...0x39).contains(c) { cur = min(cur * 10 + Int(c - 0x30), 1 << 30) }
        }
        out.append(cur)
        return out
    }

    private static func csiReply(_ seq: [UInt8]) -> Event? {
        // seq = ESC [ params final
        let final = seq[seq.count - 1]
        let body = seq[2..<(seq.count - 1)]
        let privateQ = body.first == UInt8(ascii: "?")
        switch final {
        case UInt8(ascii: "c") where privateQ:
            return .primaryDeviceAttributes(numbers(body.dropFirst()))
        case UInt8(ascii: "S") where privateQ:
            // Digits and `;` only: the values size frames, so `1000:5` or `-1` is not half-read.
            let params = body.dropFirst()
            guard params.allSatisfy({ $0 == UInt8(ascii: ";") || (0x30...0x39).contains($0) }) else { return .otherReply }
            let n = numbers(params)
            guard n.count >= 2 else { return .otherReply }
            return .graphicsAttribute(item: n[0], status: n[1], values: Array(n.dropFirst(2)))
        case UInt8(ascii: "t") where !privateQ && !body.isEmpty:
            let n = numbers(body)
            if n.count == 3 && n[0] == 6 { return .cellPixels(width: n[2], height: n[1]) }
            return .otherReply
        default:
            return nil
        }
    }

    private static func stringReply(_ kind: UInt8, _ payload: ArraySlice<UInt8>) -> Event {
        let text = String(decoding: payload, as: UTF8.self)
        switch kind {
        case UInt8(ascii: "]"):
            let fields = text.split(separator: ";", omittingEmptySubsequences: false)
            guard let code = fields.first.flatMap({ Int($0) }) else { return .otherReply }
            if code == 4 {
                // `4;N;spec` (several pairs when a terminal answers a multi-entry query at once:
                // only the first is returned here; the probe asks one entry per query).
                guard fields.count >= 3, let i = Int(fields[1]), let c = RGBColor(xColorSpec: fields[2]) else { return .otherReply }
                return .paletteColor(index: i, c)
            }
            if (10...12).contains(code), fields.count >= 2, let c = RGBColor(xColorSpec: fields[1]) {
                return .dynamicColor(code: code, c)
            }
            return .otherReply
        case UInt8(ascii: "P"):
            if text.hasPrefix(">|") { return .version(String(text.dropFirst(2))) }
            if text.hasPrefix("1$r"), text.hasSuffix("m") { return .graphicRendition(String(text.dropFirst(3).dropLast())) }
            if text.hasPrefix("0+r") {
                return .capability(name: Self.unhex(text.dropFirst(3)) ?? "", value: nil, known: false)
            }
            if text.hasPrefix("1+r") {
                let kv = text.dropFirst(3).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = Self.unhex(kv[0]) else { return .otherReply }
                return .capability(name: name, value: kv.count > 1 ? Self.unhex(kv[1]) : nil, known: true)
            }
            return .otherReply
        case UInt8(ascii: "_"):
            guard text.hasPrefix("G") else { return .otherReply }
            let parts = text.dropFirst().split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            var id: UInt32?
            for kv in parts[0].split(separator: ",") where kv.hasPrefix("i=") {
                id = UInt32(kv.dropFirst(2))
            }
            return .kittyGraphics(id: id, message: parts.count > 1 ? String(parts[1]) : "")
        default:
            return .otherReply
        }
    }
}
