import AnimatedCore

/// Takes terminal replies out of the keys read during playback.
///
/// The probe reads the replies to its queries, but a terminal slower than the probe's budget
/// (over ssh, say) answers after it, while ncurses reads the keys: an OSC 11 reply would be
/// read as Esc, `]`, `1`, `1`, `;`, `r`, `g`, `b`… (reverse, restart). Every key batch goes
/// through a `TerminalReplyParser`, which drops whole replies and passes keys on unchanged
/// (see its notes for what counts as a reply). A sequence that stops arriving (a user's
/// Alt+], which looks like an OSC opener) is forgotten after `staleNanoseconds`.
package struct KeyReplyFilter: Sendable {
    private var parser = TerminalReplyParser()
    private var lastInput: UInt64 = 0
    package static let staleNanoseconds: UInt64 = 500_000_000
    /// The graphics replies taken out so far (kitty's `ESC _ G i=…;message`, e.g. "ENOSPC:…"
    /// for a refused frame upload), with their image ids, for the output to act on;
    /// `takeGraphicsReplies()` empties it.
    package private(set) var graphicsReplies: [(id: UInt32?, message: String)] = []
    /// DA1 replies taken out so far: the probe's late sentinels (see `TerminalProbe.LateReplies`).
    package private(set) var sentinelsSeen = 0

    package init() {}

    package mutating func takeGraphicsReplies() -> [(id: UInt32?, message: String)] {
        defer { graphicsReplies = [] }
        return graphicsReplies
    }

    /// `keys`: one batch of key codes as ncurses delivers them (bytes 0–255 as they came,
    /// decoded keys such as KEY_LEFT above 255), read at `now` (nanoseconds).
    package mutating func filter(_ keys: [Int32], now: UInt64) -> [Int32] {
        if parser.isInsideSequence && now &- lastInput > Self.staleNanoseconds { parser.reset() }
        guard !keys.isEmpty else { return [] }
        lastInput = now
        var out: [Int32] = []
        var replies: [(id: UInt32?, message: String)] = []
        func take(_ events: [TerminalReplyParser.Event]) {
            for e in events {
                if case .keys(let bytes) = e { out += bytes.map(Int32.init) }
                if case .primaryDeviceAttributes = e { sentinelsSeen += 1 }
                if case .kittyGraphics(let id, let message) = e { replies.append((id, message)) }
            }
        }
        for k in keys {
            if (0..<256).contains(k) {
                take(parser.feed(CollectionOfOne(UInt8(k))))
            } else {
                // A decoded key ends whatever was in progress (an Esc before it stays a key).
                take(parser.finish())
                out.append(k)
            }
        }
        // ncurses hands over a lone Esc only after its escape delay: it is the Esc key.
        if parser.isAtLoneEscape { take(parser.finish()) }
        graphicsReplies += replies.prefix(16)
        return out
    }
}
