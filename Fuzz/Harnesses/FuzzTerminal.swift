@testable import AnimatedCore
@testable import AnimatedTerminal

/// libFuzzer entry for the terminal reply parser (bytes a hostile terminal or a user could send
/// while the probe waits), see Fuzz/run.sh. Besides not crashing: the events do not depend on
/// how the stream is cut into reads (cuts taken from the data itself), keys are never more
/// than the input, and every event folds into a report, from which every `--graphics` request
/// is planned (in and out of tmux) without a trap and with a printable warning: a forced
/// unwrap of a missing XTVERSION answer once trapped there.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var whole = TerminalReplyParser()
    let expected = merged(whole.feed(bytes) + whole.finish())
    var split = TerminalReplyParser()
    var events: [TerminalReplyParser.Event] = []
    var i = 0
    while i < size {
        let n = 1 + Int(bytes[i] % 7)
        events += split.feed(bytes[i..<min(size, i + n)])
        i += n
    }
    events += split.finish()
    precondition(merged(events) == expected, "events depend on how the input is cut")
    var keys = 0
    var report = TerminalReport()
    for e in expected {
        if case .keys(let k) = e { keys += k.count }
        report.apply(e)
    }
    precondition(keys <= size, "more keys than input")
    _ = report.lines
    plan(report)
    var filter = KeyReplyFilter()
    let out = filter.filter(bytes.map(Int32.init), now: 1)
    precondition(out.count <= size + 1, "filter invented keys")
    return 0
}

/// Every request planned from `report`; the warning (which may quote the terminal) is printable.
private func plan(_ report: TerminalReport) {
    let requests = ["auto"] + GraphicsProtocol.allCases.flatMap { [$0.rawValue, $0.rawValue + "!"] }
    for argument in requests {
        let request = GraphicsRequest(argument: argument)!
        for env in [["TERM": "xterm-256color"], ["TERM": "screen", "TMUX": "/tmp/t,1,0"]] {
            for passthrough in [false, true] {
                let (_, decision, warning) = OutputPlan.decide(request, report: report, env: env,
                                                               tmuxAllowsPassthrough: { passthrough },
                                                               windowCell: nil, symbols: .half)
                for text in [warning, decision.unsupported].compactMap({ $0 }) {
                    precondition(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                                 "a control character in a warning")
                }
            }
        }
    }
}

/// Consecutive key runs as one (a read boundary may split a run of keys); linear time.
private func merged(_ events: [TerminalReplyParser.Event]) -> [TerminalReplyParser.Event] {
    var out: [TerminalReplyParser.Event] = []
    var keys: [UInt8] = []
    for e in events {
        if case .keys(let k) = e { keys += k; continue }
        if !keys.isEmpty { out.append(.keys(keys)); keys = [] }
        out.append(e)
    }
    if !keys.isEmpty { out.append(.keys(keys)) }
    return out
}
