/// Where a tmux pane sits on the outer terminal's screen. Inside tmux, cursor moves reach tmux,
/// which keeps its own cursor per pane; kitty places a passed-through image at the outer
/// terminal's real cursor, so placements are written in outer coordinates: the pane's offset
/// plus the cell inside the pane.
public struct TmuxPane: Sendable, Equatable {
    /// Rows and columns between the outer screen's top-left and the pane's.
    public var top: Int, left: Int

    /// A pane `top` rows and `left` columns from the outer screen's top-left.
    public init(top: Int, left: Int) { self.top = top; self.left = left }

    /// The `tmux display -p` format whose output `parse` reads.
    package static let format = "#{pane_top} #{pane_left} #{status} #{status-position}"

    /// Reads `pane_top pane_left status status-position`: a status line at the top (`status`
    /// on, or 2–5 lines) pushes every pane down by its height.
    package static func parse(_ line: some StringProtocol) -> TmuxPane? {
        let f = line.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard f.count >= 2, let top = Int(f[0]), let left = Int(f[1]), top >= 0, left >= 0 else { return nil }
        var statusLines = 0
        if f.count >= 4, f[3] == "top" {
            statusLines = f[2] == "on" ? 1 : Int(f[2]).map { max(0, min(5, $0)) } ?? 0
        }
        return TmuxPane(top: top + statusLines, left: left)
    }

    /// CUP to cell (`row`, `column`) of the pane (0-based), in the outer terminal's coordinates.
    package func cursor(row: Int, column: Int) -> [UInt8] {
        Array("\u{1B}[\(top + row + 1);\(left + column + 1)H".utf8)
    }
}
