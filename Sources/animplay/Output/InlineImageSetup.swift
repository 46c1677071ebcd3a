import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// What the sixel and iTerm2 outputs need to start.
struct InlineImageSetup {
    var kind: InlineImageOutput.Kind
    var cell: RenderSize
    var reportedCell: RenderSize?
    /// Sixel colour registers to use (the terminal's XTSMGRAPHICS answer, at most 256).
    var registers: Int
    /// Inside tmux: wrap each image for passthrough.
    var tmux: Bool
}

extension GraphicsOptions {
    /// Sixel colour registers assumed when the terminal does not answer XTSMGRAPHICS (xterm,
    /// foot, WezTerm and mlterm all have at least 256).
    static let defaultRegisters = 256

    /// The sixel or iTerm2 setup, or nil after one warning line when the terminal's cell size in
    /// pixels is unknown (there is then nothing to size an image by). `--graphics sixel` is
    /// obeyed even when DA1 does not list sixel (auto only picks sixel when it does).
    func inlineImageSetup(_ p: GraphicsProtocol, report: TerminalReport) -> InlineImageSetup? {
        let kind: InlineImageOutput.Kind = p == .sixel ? .sixel : .iterm2
        let reported = report.reportedCellPixels.map { RenderSize(width: $0.width, height: $0.height) }
        guard let cell = KittyOutput.cellSize(fd: 1, reported: reported) else {
            warn("the terminal does not report its cell size in pixels; using cells")
            return nil
        }
        let registers = max(2, min(256, report.colorRegisters ?? Self.defaultRegisters))
        return InlineImageSetup(kind: kind, cell: cell, reportedCell: reported, registers: registers, tmux: false)
    }
}
