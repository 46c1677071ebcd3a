import AnimatedCore

/// Real pixels as inline images that the terminal paints into the cells under the cursor:
/// sixel (`DCS q … ST`) and iTerm2 (`OSC 1337 ; File=…`). Each frame is a whole composited
/// frame over the background (prepared and encoded on the producer thread, held in the frame
/// buffer, so later plays re-send without encoding) written at a fixed cell:
///
///     CSI ? 2026 h  sc  CUP row;col  <image>  rc  CSI ? 2026 l
///
/// Synchronized output (2026) keeps a frame from tearing where the terminal supports it (and
/// is ignored elsewhere). The image never reaches the bottom row (the layout keeps a spare row,
/// see the CLI's `Play.layoutFunction`): a sixel image leaves the cursor below itself, and on the last row
/// that scrolls the screen, shifting every later frame (timg #166).
///
/// ncurses is told nothing about the image (it presents an empty grid, as for kitty): it only
/// writes the status line and clears the screen on a new layout, after which the frame is sent
/// again. When the terminal is not ready for more (output would block), the frame due is
/// skipped, never queued: the next one due is sent when it is.
package final class InlineImageOutput: FrameOutput {
    package enum Kind: String, Sendable { case sixel, iterm2 }
    package let kind: Kind
    /// The status line and clears (nil for a still).
    let screen: (any CellScreen)?
    let sink: any TerminalSink
    package let preparer: any FrameScaler
    /// Cell size, tmux passthrough (each image is wrapped; the cursor moves stay tmux's own).
    package let terminal: TerminalInfo
    package private(set) var cell: RenderSize
    private var current: ScaledFrame?
    /// What the terminal shows: frame (index, size) at a layout.
    private var drawn: (index: Int, size: RenderSize, layout: RenderLayout)?
    private var placedAt: RenderLayout?
    package private(set) var skipped = 0
    private let empty = CellGrid()
    /// Decompresses the sixel frames the frame buffer holds (one context for every frame).
    private lazy var decompressor = Zstd.Decompressor()
    package var hasFrame: Bool { current != nil }
    /// Set when a frame came without an image (the encoder failed: out of memory).
    package private(set) var failure: String?
    package var failureSubject: String { "the \(kind.rawValue) output failed" }

    package init(kind: Kind, screen: (any CellScreen)?, sink: any TerminalSink, terminal: TerminalInfo,
                preparer: any FrameScaler) {
        self.kind = kind; self.screen = screen; self.sink = sink; self.terminal = terminal
        self.cell = terminal.cell; self.preparer = preparer
    }

    package func syncCellSize() -> Bool {
        guard let now = terminal.currentCell(window: sink.windowCellSize), now != cell else { return false }
        cell = now
        return true
    }

    package func show(_ frame: ScaledFrame) {
        if frame.payload.isEmpty { failure = "frame \(frame.index + 1) could not be encoded"; return }
        current = frame
    }

    package func invalidate() {
        screen?.invalidate()
        placedAt = nil
        drawn = nil
    }

    package var statusNote: String? { skipped > 0 ? "\(kind.rawValue): \(skipped) skipped (terminal busy)" : nil }

    package func present(at layout: RenderLayout, status: String?) {
        screen?.present(empty, at: layout, status: status)   // the text screen: status line, clears
        if placedAt != layout { placedAt = layout; drawn = nil }
        guard let frame = current, !frame.payload.isEmpty else { return }
        // A frame prepared for another layout (the buffer still held it when the window
        // changed size) is never written: a sixel of the old size would overflow the smaller
        // screen and scroll it (issue 20.2). The screen stays cleared until a frame of the new
        // size comes.
        guard frame.size == layout.size else { return }
        if let d = drawn, d.index == frame.index, d.size == frame.size, d.layout == layout { return }
        guard sink.isWritable else { skipped += 1; return }
        var out = framePrefix(layout)
        let suffix = frameSuffix
        if kind == .sixel && !terminal.tmuxPassthrough {
            if SixelFramePreparer.holdsRawSixel(frame) {
                // The first frame: written from where it is held, between the two (copied into
                // one array, its 300 KB at 1200×675 took 0.3 ms on fresh pages, before the first
                // image).
                sink.write(out)
                sink.write(frame.payload)
                out = suffix
            } else {
                // One array of the frame's size, the sixel decompressed into it in place.
                out = SixelFramePreparer.sixel(of: frame, between: out, and: suffix, using: decompressor)
            }
        } else {
            out += image(frame, layout: layout, moveCursor: false)
            out += suffix
        }
        sink.write(out)
        drawn = (frame.index, frame.size, layout)
        lastLayout = layout
    }

    /// The first sixel image, written as its bands are encoded (see `FrameStream`): between
    /// the same cursor moves as `present`'s, so that the frame, when it comes, is on screen
    /// already. The stream ends when the frame is made (a few milliseconds), so no DCS is left
    /// open when this returns: keys and signals wait meanwhile, as during any frame's write.
    /// The later pieces are written by the producer's thread as it makes them, while this one
    /// waits (`FrameStream.drain`): the sink is used by one thread at a time.
    /// Not through tmux (each image is wrapped whole there), nor at another size than the
    /// layout's, nor after a frame was shown.
    package func writeAhead(_ stream: FrameStream, at layout: RenderLayout, status: String?) {
        guard kind == .sixel, !terminal.tmuxPassthrough, current == nil, stream.size == layout.size,
              sink.isWritable else { return }
        screen?.present(empty, at: layout, status: status)
        let prefix = framePrefix(layout), sink = sink
        var started = false
        // Called on this thread for what has come, then on the producer's (this one waits).
        let complete = stream.drain { bytes in
            if !started { started = true; sink.write(prefix) }
            sink.write([UInt8](bytes))
        }
        guard started else { return }
        // An image cut short (never, by `StreamingFrameScaler`'s contract) is ended here and
        // written again whole when its frame comes.
        sink.write((complete ? [] : Array("\u{1B}\\".utf8)) + frameSuffix)
        placedAt = layout
        guard complete else { return }
        drawn = (stream.index, stream.size, layout)
        lastLayout = layout
    }

    /// What comes before a frame's image: synchronized output begins, the cursor is saved and
    /// moved to the layout's cell.
    private func framePrefix(_ layout: RenderLayout) -> [UInt8] {
        Array("\u{1B}[?2026h".utf8) + sink.saveCursor + sink.cursorTo(row: layout.row, column: layout.column)
    }

    /// What comes after it: the cursor restored, synchronized output ended.
    private var frameSuffix: [UInt8] { sink.restoreCursor + Array("\u{1B}[?2026l".utf8) }

    /// Where the last frame was drawn: its cells size the printed copy (iTerm2 stretches it).
    private var lastLayout: RenderLayout?

    private func image(_ frame: ScaledFrame, layout: RenderLayout, moveCursor: Bool) -> [UInt8] {
        let bytes: [UInt8]
        switch kind {
        case .sixel:
            bytes = SixelFramePreparer.sixel(of: frame, using: decompressor)
        case .iterm2:
            bytes = ITermImageEncoder.sequence(payload: frame.payload, columns: layout.columns, rows: layout.rows,
                                               moveCursor: moveCursor)
        }
        return terminal.wrap(bytes)
    }

    /// Inline images live in the alternate screen's cells: leaving it removes them.
    package func leave() {}

    /// The last frame at the cursor in the normal screen, like `cat`: the terminal moves the
    /// cursor below the image (scrolling as needed).
    package func printLast(indent: Int) {
        guard let frame = current, !frame.payload.isEmpty else { return }
        let placed = lastLayout.flatMap { $0.size == frame.size ? $0 : nil }
            ?? RenderLayout(size: frame.size, row: 0, column: 0, cell: cell)
        var out = (indent > 0 ? Array("\r\u{1B}[\(indent)C".utf8) : [])
        out += image(frame, layout: placed, moveCursor: true)
        out += Array("\r\n".utf8)
        sink.write(out)
    }
}
