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
/// kitty's replies are this output's own: an upload error (`ENOSPC`, say) among the keys makes
/// it `failure`, and the loop goes on in cells.
public final class KittyOutput: FrameOutput {
    /// The status line and clears (nil for a still).
    let screen: (any CellScreen)?
    let sink: any TerminalSink
    public let preparer: any FrameScaler
    public let terminal: TerminalInfo
    /// The frames the terminal holds and the commands to show one.
    private(set) var animation: KittyAnimation
    public private(set) var cell: RenderSize
    private var current: ScaledFrame?
    private var placedAt: RenderLayout?
    private let empty = CellGrid()
    public var hasFrame: Bool { current != nil }
    public var failureSubject: String { "the terminal refused kitty graphics" }
    public private(set) var failure: String?

    /// `preparer` is what `OutputPlan.build` made for `medium` (it compresses only inline payloads).
    public init(screen: (any CellScreen)?, sink: any TerminalSink, terminal: TerminalInfo,
                medium: KittyMedium = .direct, preparer: KittyFramePreparer = KittyFramePreparer()) {
        self.screen = screen; self.sink = sink; self.terminal = terminal; self.cell = terminal.cell
        self.preparer = preparer
        // Image id: fixed per process, non-zero, unlikely to meet another program's ids.
        let id: UInt32 = 0x4150_0000 | (UInt32(truncatingIfNeeded: getpid()) & 0xFFFF)
        var graphics = KittyGraphics(tmux: terminal.tmuxPassthrough)
        graphics.compressed = preparer.compress
        animation = KittyAnimation(id: id, graphics: graphics, stager: KittyStager(medium: medium))
    }

    public func syncCellSize() -> Bool {
        guard let now = terminal.currentCell(window: sink.windowCellSize), now != cell else { return false }
        cell = now
        return true
    }

    public func show(_ frame: ScaledFrame) { current = frame }

    public func invalidate() {
        screen?.invalidate()
        placedAt = nil
    }

    /// The first error among the replies (a late answer to a medium probe, whose object is gone
    /// by then, is no upload error).
    public func accept(replies: [(id: UInt32?, message: String)]) {
        let probes: Set<UInt32> = [KittyMedium.fileProbeID, KittyMedium.sharedMemoryProbeID]
        if failure == nil, let error = replies.first(where: { r in r.message != "OK" && !(r.id.map(probes.contains) ?? false) }) {
            failure = error.message
        }
    }

    /// What `--status` says: how many frames the terminal holds.
    public var statusNote: String? {
        guard animation.imageSize != nil else { return nil }
        return animation.streams ? "kitty: \(animation.heldCount) frames held, rest streamed" : "kitty: \(animation.heldCount) frames held"
    }

    public func present(at layout: RenderLayout, status: String?) {
        // The text screen first: the status line, and a cleared screen when the layout changed.
        screen?.present(empty, at: layout, status: status)
        guard let frame = current, !frame.payload.isEmpty else { return }
        var out: [UInt8] = sink.saveCursor
        if placedAt != layout {
            // New place or unknown screen: start the image again from this frame.
            animation.delete(to: &out)
            placedAt = layout
        }
        let start = out.count
        animation.show(frame, cursor: Array("\u{1B}[\(layout.row + 1);\(layout.column + 1)H".utf8), to: &out)
        guard out.count > start else { return }
        out += sink.restoreCursor
        sink.write(out)
    }

    /// Deletes the image and every frame it holds (the last frame is printed again by
    /// `printLast` into the normal screen, where it stays).
    public func leave() {
        var out: [UInt8] = []
        animation.delete(to: &out)
        if !out.isEmpty { sink.write(out) }
    }

    public func printLast() {
        guard let frame = current, !frame.payload.isEmpty else { return }
        var out: [UInt8] = []
        let (graphics, payload) = animation.transmission(frame.payload)
        graphics.transmitStill(size: frame.size, payload: payload, to: &out)
        out += [0x0D, 0x0A]
        sink.write(out)
    }
}
