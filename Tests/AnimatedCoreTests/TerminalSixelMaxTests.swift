import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal

/// XTSMGRAPHICS's largest sixel geometry (`CSI ? 2 ; 4 ; 0 S`): asked in the round, read from
/// real answers in any split, and refused when it is not a size.
@Suite struct TerminalSixelMaxTests {
    typealias Event = TerminalReplyParser.Event

    func report(_ bytes: [UInt8], pieces size: Int = 1000) -> (TerminalReport, [Event]) {
        let events = TerminalReplyParser.events(of: bytes, pieces: size)
        var r = TerminalReport()
        for e in events { r.apply(e) }
        return (r, events)
    }

    func report(_ s: String) -> TerminalReport { report(Array(s.utf8)).0 }

    /// xterm 379 as a VT340 with 256 registers, recorded under Xvfb (the answers in the order
    /// asked: registers, then the geometry).
    static let xterm = "\u{1B}[?1;0;256S\u{1B}[?2;0;1000;1000S\u{1B}[?63;1;2;4;6;9;15;16;22;28c"
    /// mlterm 3.9.0 answers the geometry query as a failure of item 1 (recorded).
    static let mlterm = "\u{1B}[?1;0;1024S\u{1B}[?1;3;0S\u{1B}[?63;1;2;3;4;6;7;15;18;22;29c"

    @Test(arguments: [1, 2, 5, 1000])
    func xtermsAnswerInAnySplit(size: Int) {
        let (r, events) = report(Array(Self.xterm.utf8), pieces: size)
        #expect(!events.contains { if case .keys = $0 { true } else { false } })
        #expect(r.sixelMaxSize == PixelSize(width: 1000, height: 1000))
        #expect(r.colorRegisters == 256 && r.sixel)
        #expect(r.lines.contains("sixel max size: 1000x1000"))
    }

    @Test func mltermsFailureIsNoLimitAndLeavesTheRegisters() {
        let r = report(Self.mlterm)
        #expect(r.sixelMaxSize == nil && r.colorRegisters == 1024)
        #expect(r.lines.contains("sixel max size: -"))
    }

    @Test(arguments: [
        "?2;0;0;0S", "?2;0;0;1000S", "?2;0;1000;0S",   // zero: not a size
        "?2;0;1000S", "?2;0S", "?2;0;;S",              // missing values
        "?2;0;1000;1000;5S",                           // one too many
        "?2;1;1000;1000S", "?2;3;1000;1000S",          // failure status
        "?2;0;1000:5;1000S", "?2;0;-1;1000S", "?2;0; 1000;1000S",   // not digits
        "?3;0;1000;1000S",                             // ReGIS, not sixel
        "2;0;1000;1000S",                              // no `?`: scroll up, not a reply
    ])
    func malformedAnswersAreNoLimit(reply: String) {
        let (r, events) = report(Array(("\u{1B}[" + reply + "\u{1B}[?62;4c").utf8), pieces: 3)
        #expect(r.sixelMaxSize == nil)
        #expect(r.answeredDA1)
        // Never typed text, whatever the form (an unknown CSI is a key only without `?`).
        #expect(events.allSatisfy { if case .keys = $0 { !reply.hasPrefix("?") } else { true } })
    }

    @Test func hugeValuesAreClampedAndTheFirstAnswerWins() {
        let r = report("\u{1B}[?2;0;99999999999999999999999999;1000S\u{1B}[?2;0;640;480S\u{1B}[?62;4c")
        #expect(r.sixelMaxSize == PixelSize(width: 1 << 30, height: 1000))
    }

    @Test func theRoundAsksForTheGeometryWithTheGraphics() {
        let ask = TerminalQueries.sixelMaxGeometry
        #expect(ask == Array("\u{1B}[?2;4;0S".utf8))
        #expect(TerminalQueries.round(insideTmux: false).contains(ask))
        #expect(!TerminalQueries.round(insideTmux: false, graphicsQueries: false).contains(ask))
        // Inside tmux only the outer terminal is asked (tmux answers item 2 with a failure).
        let tmux = TerminalQueries.round(insideTmux: true)
        #expect(!tmux.contains(ask) && tmux.contains(TerminalQueries.tmuxPassthrough(ask)))
        // Before the DA1 sentinel, after the registers.
        let plain = TerminalQueries.round(insideTmux: false)
        let i = plain.firstIndex(of: ask)!
        #expect(plain.firstIndex(of: TerminalQueries.colorRegisters)! < i)
        #expect(plain.firstIndex(of: TerminalQueries.primaryDeviceAttributes)! > i)
    }

    @Test func thePlanCarriesTheLimitForSixelOnly() {
        var r = report(Self.xterm)
        r.reportedCellPixels = PixelSize(width: 6, height: 13)
        let sixel = OutputPlan.decide(.auto, report: r, env: [:], tmuxAllowsPassthrough: { false }, windowCell: nil,
                                      symbols: .half, screen: (200, 60))
        #expect(sixel.plan.maxPicture == RenderSize(width: 1000, height: 1000))
        #expect(sixel.plan.terminal?.maxSixelSize == RenderSize(width: 1000, height: 1000))
        r.kittyReplies[TerminalQueries.kittyQueryID] = "OK"
        let kitty = OutputPlan.decide(.auto, report: r, env: [:], tmuxAllowsPassthrough: { false }, windowCell: nil,
                                      symbols: .half, screen: (200, 60))
        guard case .kitty = kitty.plan else { Issue.record("\(kitty.plan)"); return }
        #expect(kitty.plan.maxPicture == nil)
        // No answer: no limit (today's behaviour).
        var silent = r
        silent.sixelMaxSize = nil; silent.kittyReplies = [:]
        let unlimited = OutputPlan.decide(.auto, report: silent, env: [:], tmuxAllowsPassthrough: { false }, windowCell: nil,
                                          symbols: .half, screen: (200, 60))
        #expect(unlimited.plan.maxPicture == nil && unlimited.plan.isPixels)
    }
}
