/// Takes kitty graphics replies (`ESC _ G <keys> ; <message> ESC \`) out of the key stream.
///
/// Frame uploads ask for error replies only (`q=1`); they arrive on the terminal's input, among
/// the keys, where an ESC must not be read as the Esc key (quit). Key codes go in as the screen
/// reads them (bytes below 256 are characters); what is not part of a reply comes out unchanged,
/// and each reply's message (after the `;`) is returned, e.g. "ENOSPC:...". A reply split across
/// reads is held until it ends.
public struct KittyReplyFilter: Sendable {
    private enum State: Sendable { case keys, escape, apcStart, reply, replyEscape }
    private var state = State.keys
    private var body: [UInt8] = []

    public init() {}

    /// Keys without the replies, and the messages of the replies that ended in this batch.
    public mutating func filter(_ keys: [Int32]) -> (keys: [Int32], replies: [String]) {
        var out: [Int32] = [], replies: [String] = []
        for k in keys {
            switch state {
            case .keys:
                if k == 0x1B { state = .escape } else { out.append(k) }
            case .escape:
                if k == 0x5F { state = .apcStart } else {
                    out.append(0x1B)
                    if k == 0x1B { state = .escape } else { out.append(k); state = .keys }
                }
            case .apcStart:
                if k == 0x47 { state = .reply; body = [] } else {
                    out += [0x1B, 0x5F]          // not ours: give the keys back
                    if k == 0x1B { state = .escape } else { out.append(k); state = .keys }
                }
            case .reply:
                if k == 0x1B { state = .replyEscape }
                else if k >= 0 && k < 256 && body.count < 512 { body.append(UInt8(k)) }
            case .replyEscape:
                if k == 0x5C {
                    let text = String(decoding: body, as: UTF8.self)
                    replies.append(text.split(separator: ";", maxSplits: 1).dropFirst().first.map(String.init) ?? "")
                    state = .keys
                } else {
                    state = .reply
                }
            }
        }
        // A lone ESC at the end of a batch is the Esc key: the screen delivers a sequence's
        // bytes together (it waits ESCDELAY for them), so nothing follows it.
        if state == .escape { out.append(0x1B); state = .keys }
        return (out, replies)
    }
}
