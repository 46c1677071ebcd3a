import AnimatedCore

/// Cells (half blocks or finer symbols): the buffer holds scaled RGBA (or the chosen cells),
/// the display turns the frame due into cells and the screen writes the changed ones.
package final class CellOutput: FrameOutput {
    /// Where the cells are drawn during playback (nil for a still: only `printLast`).
    let screen: (any CellScreen)?
    let sink: any TerminalSink
    let renderer: CellRenderer
    /// How `printLast` writes colours.
    let mode: ColorMode
    /// The last frame as cells (printed into the normal screen on exit).
    let grid = CellGrid()
    package private(set) var hasFrame = false
    /// Scales (and, for finer symbols, chooses the glyphs) on the producer thread.
    package let preparer: any FrameScaler
    package var cell: RenderSize { RenderLayout.halfBlockCell }
    package var failure: String? { nil }
    package var statusNote: String? { nil }

    package init(screen: (any CellScreen)?, sink: any TerminalSink, renderer: CellRenderer, mode: ColorMode,
                preparer: any FrameScaler) {
        self.screen = screen; self.sink = sink; self.renderer = renderer; self.mode = mode; self.preparer = preparer
    }

    package func show(_ frame: ScaledFrame) {
        renderer.render(frame, into: grid)
        hasFrame = true
    }

    /// Presents the current cells, centred in the box by their own size (after a resize the
    /// player may still deliver a frame rendered at the previous size).
    package func present(at layout: RenderLayout, status: String?) {
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

    package func invalidate() { screen?.invalidate() }
    package func syncCellSize() -> Bool { false }
    package func leave() {}

    package func printLast(indent: Int) {
        guard hasFrame else { return }
        var writer = SGRCellWriter(mode: mode)
        writer.printLines(grid, indent: indent)
        sink.write(writer.bytes)
    }
}
