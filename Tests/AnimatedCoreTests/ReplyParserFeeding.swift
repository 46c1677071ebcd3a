@testable import AnimatedTerminal

extension TerminalReplyParser {
    /// Every event a new parser makes of `bytes` fed in pieces of `size` bytes, the finish
    /// included (replies arrive split anywhere).
    static func events(of bytes: [UInt8], pieces size: Int) -> [Event] {
        var p = TerminalReplyParser()
        var events: [Event] = []
        var i = 0
        while i < bytes.count {
            events += p.feed(bytes[i..<min(bytes.count, i + size)])
            i += size
        }
        return events + p.finish()
    }
}
