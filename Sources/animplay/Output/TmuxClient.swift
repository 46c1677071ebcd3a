import AnimatedCore
import AnimatedTerminal
#if canImport(Glibc)
import Glibc
#endif

/// Questions to the tmux server animplay runs under (the `tmux` client, through $TMUX).
enum TmuxClient {
    /// One line of `tmux ARGUMENTS`' output, nil when tmux failed or said nothing. `arguments`
    /// is a shell command line built from fixed text and checked names only.
    static func output(_ arguments: String) -> String? {
        guard let f = popen("tmux \(arguments) 2>/dev/null", "r") else { return nil }
        var buf = [UInt8](repeating: 0, count: 256)
        let n = fread(&buf, 1, buf.count, f)
        pclose(f)
        return n > 0 ? String(decoding: buf[..<n], as: UTF8.self) : nil
    }

    /// Whether passthrough is allowed (`allow-passthrough` on or all).
    static func allowsPassthrough() -> Bool {
        let v = output("show -gv allow-passthrough")?.split(whereSeparator: \.isWhitespace).first ?? ""
        return v == "on" || v == "all"
    }

    /// This pane's offset on the outer terminal ($TMUX_PANE, e.g. `%3`, names it).
    static func pane() -> TmuxPane? {
        var target = ""
        if let p = getenv("TMUX_PANE").map({ String(cString: $0) }),
           p.first == "%", p.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }), p.count > 1 {
            target = "-t '\(p)' "
        }
        return output("display -p \(target)'\(TmuxPane.format)'").flatMap(TmuxPane.parse)
    }
}
