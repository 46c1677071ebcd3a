import AnimatedCore

/// Cells (half blocks or finer symbols): the buffer holds scaled RGBA (or the chosen cells),
/// the display turns the frame due into cells and the screen writes the changed ones.
public final class CellOutput: FrameOutput {
    /// Where the cells are drawn during playback (nil for a still: only `printLast`).
    let screen: (any CellScreen)?
    let sink: any TerminalSink
    let renderer: CellRenderer
    /// How `printLast` writes colours.
    let mode: ColorMode
    /// The last frame as cells (printed into the normal screen on exit).
    let grid = CellGrid()
    public private(set) var hasFrame = false
    /// Scales (and, for finer symbols, chooses the glyphs) on the producer thread.
    public let preparer: any FrameScaler
    public var cell: RenderSize { RenderLayout.halfBlockCell }
    public var failure: String? { nil }
    public var statusNote: String? { nil }

    public init(screen: (any CellScreen)?, sink: any TerminalSink, renderer: CellRenderer, mode: ColorMode,
                preparer: any FrameScaler) {
        self.screen = screen; self.sink = sink; self.renderer = renderer; self.mode = mode; self.preparer = preparer
    }

    public func show(_ frame: ScaledFrame) {
        renderer.render(frame, into: grid)
        hasFrame = true
    }

    /// Presents the current cells, centred in the box by their own size (after a resize the
    /// player may still deliver a frame rendered at the previous size).
    public func present(at layout: RenderLayout, status: String?) {
        guard hasFrame, let screen else { return }
        var at = layout
        if grid.columns != layout.size.width || grid.rows != layout.rows {
            let boxRows = screen.rows - (status != nil ? 1 : 0)
            at = RenderLayout(size: RenderSize(width: grid.columns, height: grid.rows * 2),
                              row: max(0, (boxRows - grid.rows) / 2),
                              column: max(0, (screen.columns - grid.columns) / 2))
        }
        screen.present(grid, at: at, status: status)
    }

    public func invalidate() { screen?.invalidate() }
    public func syncCellSize() -> Bool { false }
    public func leave() {}

    public func printLast() {
        guard hasFrame else { return }
        var writer = SGRCellWriter(mode: mode)
        writer.printLines(grid)
        sink.write(writer.bytes)
    }
}
