import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// Half-block cells (the `CellRenderer` → `PlaybackView` path, unchanged): the buffer holds
/// scaled RGBA, the display turns the frame due into cells and writes the changed ones.
final class CellOutput: FrameOutput {
    let view: PlaybackView
    let renderer: CellRenderer
    let screen: NcursesScreen
    /// The last frame as cells (printed into the normal screen on exit).
    let grid = CellGrid()
    private(set) var hasFrame = false
    /// Scales (and, for finer symbols, chooses the glyphs) on the producer thread.
    let preparer: any FrameScaler
    var cell: RenderSize { RenderLayout.halfBlockCell }
    var failure: String? { nil }
    var statusNote: String? { nil }

    init(view: PlaybackView, renderer: CellRenderer, screen: NcursesScreen, preparer: any FrameScaler) {
        self.view = view; self.renderer = renderer; self.screen = screen; self.preparer = preparer
    }

    func show(_ frame: ScaledFrame) {
        renderer.render(frame, into: grid)
        hasFrame = true
    }

    /// Presents the current cells, centred in the box by their own size (after a resize the
    /// player may still deliver a frame rendered at the previous size).
    func present(at layout: RenderLayout, status: String?) {
        guard hasFrame else { return }
        var at = layout
        if grid.columns != layout.size.width || grid.rows != layout.rows {
            let boxRows = screen.rows - (status != nil ? 1 : 0)
            at = RenderLayout(size: RenderSize(width: grid.columns, height: grid.rows * 2),
                              row: max(0, (boxRows - grid.rows) / 2),
                              column: max(0, (screen.columns - grid.columns) / 2))
        }
        view.present(grid, at: at, status: status)
    }

    func invalidate() { view.invalidate() }
    func syncCellSize() -> Bool { false }
    func leave() {}

    func printLast() {
        guard hasFrame else { return }
        var writer = SGRCellWriter(mode: view.mode)
        writer.printLines(grid)
        TerminalOutput.write(1, writer.bytes)
    }
}
