import AnimatedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real pixels through the kitty graphics protocol, client-driven: one image whose frames are
/// each uploaded once (the first as the root frame with `a=T`, the others with `a=f`), one
/// placement, and on each display tick the frame shown is switched with `a=a,c=N`. The player's
/// display clock stays the clock (speed, reverse, pause, step, `--loop`, drops all keep working)
/// and later plays send only frame switches, tens of bytes a tick.
///
/// Frames are whole composited frames (our compositor's), so each replaces the last on screen:
/// kitty never blends one over another. Every command is sent with `q=2` (no replies).
///
/// The terminal's contents are unknown after a resize, a resume or a re-layout (ncurses clears
/// the screen, and kitty drops images from a cleared screen): the image is deleted and built
/// again from the frame on screen, the others being uploaded again as they come.
///
/// Frames kitty holds need not be kept here too: with `terminalFrames` set (the player's), every
/// frame uploaded to keep is reported, and the player's buffer keeps a placeholder for it, which
/// `show` then gets on later plays (a switch, no data). Deleting the image loses them: that is
/// reported too, the frame due is then drawn once the player has prepared it again (the image
/// stays blank meanwhile rather than showing another frame). The frame on screen at the end
/// must have its data for `keepInPlace`, `printLast` and `lastFrameCanvas`
/// (`needsFrameOnScreen`, `Player.preparedFrameOnScreen`).
///
/// kitty's replies are this output's own: an upload error (`ENOSPC`, say) among the keys makes
/// it `failure`, and the loop goes on in cells.
///
/// Inside tmux (passthrough) three things differ. The image is placed at the outer terminal's
/// cursor, which tmux does not move for the pane: the placement carries a cursor move to the
/// pane's offset (`TerminalSink.tmuxPane`) plus the layout's cell, inside the passthrough. tmux
/// 3.3 drops passthrough while a pane waits to be redrawn (after the alternate screen is entered
/// or left, after a resize): before (re)creating the image, `TerminalSink.settle` makes sure tmux
/// has taken in what came before. And an image left on kitty's screen would stay there when
/// tmux scrolls or clears the pane (tmux knows nothing of it): at exit the image is deleted and
/// the caller prints the last frame as cells instead (`lastFrameCanvas`).
package final class KittyOutput: FrameOutput {
    /// The status line and clears (nil for a still).
    let screen: (any CellScreen)?
    let sink: any TerminalSink
    package let preparer: any FrameScaler
    package let terminal: TerminalInfo
    /// The frames the terminal holds and the commands to show one.
    private(set) var animation: KittyAnimation
    package private(set) var cell: RenderSize
    private var current: ScaledFrame?
    private var placedAt: RenderLayout?
    private let empty = CellGrid()
    package var hasFrame: Bool { current != nil }
    package var failureSubject: String { "the terminal refused kitty graphics" }
    package private(set) var failure: String?
    /// Inside tmux: the pane's place on the outer screen (nil when tmux did not say: then the
    /// pane is assumed at the top-left).
    private var pane: TmuxPane?
    /// Where frames the terminal holds are reported (nil: the player keeps them all).
    package var terminalFrames: TerminalFrames?
    /// Frames were reported held since the image was last started.
    private var reported = false
    /// Frames go through tmux's passthrough.
    package var insideTmux: Bool { terminal.tmuxPassthrough }

    /// `preparer` is what `OutputPlan.build` made for `medium` (it compresses only inline payloads).
    package init(screen: (any CellScreen)?, sink: any TerminalSink, terminal: TerminalInfo,
                medium: KittyMedium = .direct, preparer: KittyFramePreparer = KittyFramePreparer()) {
        self.screen = screen; self.sink = sink; self.terminal = terminal; self.cell = terminal.cell
        self.preparer = preparer
        // Image id: fixed per process, non-zero, unlikely to meet another program's ids.
        let id: UInt32 = 0x4150_0000 | (UInt32(truncatingIfNeeded: getpid()) & 0xFFFF)
        var graphics = KittyGraphics(tmux: terminal.tmuxPassthrough)
        graphics.compressed = preparer.compress
        animation = KittyAnimation(id: id, graphics: graphics, stager: KittyStager(medium: medium))
    }

    package func syncCellSize() -> Bool {
        guard let now = terminal.currentCell(window: sink.windowCellSize), now != cell else { return false }
        cell = now
        return true
    }

    package func show(_ frame: ScaledFrame) { current = frame }

    /// The frame on screen is a placeholder: give it with its data (`show`) before
    /// `keepInPlace`, `printLast` or `lastFrameCanvas`.
    package var needsFrameOnScreen: Bool { current?.isPlaceholder ?? false }

    package func invalidate() {
        screen?.invalidate()
        if let placedAt { lastLayout = placedAt }
        placedAt = nil
    }

    /// Where the image was last placed (kept across `invalidate` for `printLast`).
    private var lastLayout: RenderLayout?

    /// The first error among the replies (a late answer to a medium probe, whose object is gone
    /// by then, is no upload error).
    package func accept(replies: [(id: UInt32?, message: String)]) {
        let probes: Set<UInt32> = [KittyMedium.fileProbeID, KittyMedium.sharedMemoryProbeID]
        if failure == nil, let error = replies.first(where: { r in r.message != "OK" && !(r.id.map(probes.contains) ?? false) }) {
            failure = error.message
        }
    }

    /// What `--status` says: how many frames the terminal holds.
    package var statusNote: String? {
        guard animation.imageSize != nil else { return nil }
        return animation.streams ? "kitty: \(animation.heldCount) frames held, rest streamed" : "kitty: \(animation.heldCount) frames held"
    }

    package func present(at layout: RenderLayout, status: String?) {
        // The text screen first: the status line, and a cleared screen when the layout changed.
        screen?.present(empty, at: layout, status: status)
        guard let frame = current, frame.isPlaceholder || !frame.payload.isEmpty else { return }
        var out: [UInt8] = sink.saveCursor
        let start = out.count
        if placedAt != layout {
            if insideTmux {
                // tmux must have redrawn the pane first, and the pane may have moved.
                sink.settle()
                pane = sink.tmuxPane()
            }
            // New place or unknown screen: start the image again from this frame.
            animation.delete(to: &out)
            placedAt = layout
            if reported {
                reported = false
                terminalFrames?.lost()
            }
        }
        if frame.isPlaceholder && !animation.holds(frame) {
            // Gone with the image: the player prepares it again and `show` brings it.
            if out.count > start { sink.write(out) }
            return
        }
        let cursor = insideTmux ? (pane ?? TmuxPane(top: 0, left: 0)).cursor(row: layout.row, column: layout.column)
            : sink.cursorTo(row: layout.row, column: layout.column)
        animation.show(frame, cursor: cursor, cells: KittyCells(layout), to: &out)
        if let terminalFrames, !frame.isPlaceholder, animation.holds(frame) {
            terminalFrames.holds(frame)
            reported = true
        }
        guard out.count > start else { return }
        out += sink.restoreCursor
        sink.write(out)
    }

    /// The first frame's upload, inline, written as it is compressed (see `FrameStream`): the
    /// commands and cursor moves `present` would write for it, so that the frame, when it
    /// comes, is on screen already. The stream ends when the frame is made, so no command is
    /// left open when this returns. The later pieces are written by the producer's thread as
    /// it makes them, while this one waits (`FrameStream.drain`): the sink is used by one thread
    /// at a time. Not through tmux, a file or shared memory (a name goes then, not the data),
    /// nor at another size than the layout's, nor once an image exists.
    package func writeAhead(_ stream: FrameStream, at layout: RenderLayout, status: String?) {
        guard current == nil, placedAt == nil, stream.size == layout.size, animation.streamsRoot else { return }
        screen?.present(empty, at: layout, status: status)
        let animation = animation, sink = sink, cells = KittyCells(layout)
        let start = sink.saveCursor + sink.cursorTo(row: layout.row, column: layout.column)
        var command: KittyGraphics.StreamedCommand?
        // Called on this thread for what has come, then on the producer's (this one waits).
        let complete = stream.drain { bytes in
            var out: [UInt8] = []
            if command == nil {
                // The preparer declared its channels before its first byte.
                command = animation.streamedRoot(size: stream.size, channels: stream.channels == 3 ? 3 : 4, cells: cells)
                out = start
            }
            command?.add(bytes, to: &out)
            if !out.isEmpty { sink.write(out) }
        }
        guard var command else { return }
        var out: [UInt8] = []
        command.finish(to: &out)
        if complete {
            self.animation.started(root: stream.index, size: stream.size)
            placedAt = layout
        } else {
            // Cut short (never, by `StreamingFrameScaler`'s contract): the command is ended and
            // its image deleted, and the frame uploaded whole when it comes (kitty may report
            // the broken upload: the output then falls back, as after any upload error).
            animation.graphics.delete(id: animation.id, to: &out)
        }
        out += sink.restoreCursor
        sink.write(out)
    }

    /// Deletes the image and every frame it holds (the last frame is printed again by
    /// `printLast` into the normal screen, where it stays).
    package func leave() {
        var out: [UInt8] = []
        animation.delete(to: &out)
        if !out.isEmpty { sink.write(out) }
    }

    /// Inline playback ends: the animated image (kitty keeps every frame it holds for as long
    /// as it exists) becomes one still at the same place, which scrolls with the text like a
    /// printed image. The still goes first, then the animation is deleted: nothing flickers.
    package func keepInPlace() {
        guard let frame = current, !frame.payload.isEmpty, let layout = placedAt ?? lastLayout else { return leave() }
        var out = sink.saveCursor + sink.cursorTo(row: layout.row, column: layout.column)
        let (graphics, payload) = animation.transmission(frame.payload)
        graphics.transmitStill(size: frame.size, payload: payload, channels: frame.channels,
                               cells: layout.size == frame.size ? KittyCells(layout) : nil, moveCursor: false, to: &out)
        out += sink.restoreCursor
        animation.delete(to: &out)
        sink.write(out)
    }

    /// The last frame's pixels (for printing it as cells inside tmux), nil when there is none.
    package func lastFrameCanvas() -> Canvas? {
        guard let frame = current, frame.size.width > 0, frame.size.height > 0,
              let rgba = KittyFramePreparer.pixels(of: frame.payload, size: frame.size, channels: frame.channels,
                                                   compressed: animation.graphics.compressed) else { return nil }
        let canvas = Canvas(width: frame.size.width, height: frame.size.height)
        canvas.withUnsafeMutableBytes { dst in rgba.withUnsafeBytes { dst.copyMemory(from: $0) } }
        return canvas
    }

    package func printLast(indent: Int) {
        guard let frame = current, !frame.payload.isEmpty else { return }
        var out: [UInt8] = (indent > 0 ? Array("\r\u{1B}[\(indent)C".utf8) : [])
        let (graphics, payload) = animation.transmission(frame.payload)
        graphics.transmitStill(size: frame.size, payload: payload, channels: frame.channels,
                               cells: (placedAt ?? lastLayout).flatMap { $0.size == frame.size ? KittyCells($0) : nil }, to: &out)
        out += [0x0D, 0x0A]
        sink.write(out)
    }
}
