import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import CNcurses
#if canImport(Glibc)
import Glibc
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
final class KittyOutput: FrameOutput {
    let screen: NcursesScreen
    let view: PlaybackView
    let preparer: any FrameScaler
    /// The frames the terminal holds and the commands to show one.
    private(set) var animation: KittyAnimation
    private(set) var cell: RenderSize
    /// Cell size when the kernel does not know it (the terminal's answer to `CSI 16 t`).
    private let reportedCell: RenderSize?
    private var current: ScaledFrame?
    private var placedAt: RenderLayout?
    private let empty = CellGrid()
    var hasFrame: Bool { current != nil }
    var failureSubject: String { "the terminal refused kitty graphics" }
    var failure: String? { nil }

    init(screen: NcursesScreen, view: PlaybackView, cell: RenderSize, reportedCell: RenderSize?,
         tmux: Bool, medium: KittyMedium = .direct, preparer: any FrameScaler = KittyFramePreparer()) {
        self.screen = screen; self.view = view; self.cell = cell; self.reportedCell = reportedCell
        self.preparer = preparer
        // Image id: fixed per process, non-zero, unlikely to meet another program's ids.
        let id: UInt32 = 0x4150_0000 | (UInt32(truncatingIfNeeded: getpid()) & 0xFFFF)
        var graphics = KittyGraphics(tmux: tmux)
        // The preparer made for `medium` compresses only inline payloads.
        graphics.compressed = (preparer as? KittyFramePreparer)?.compress ?? true
        animation = KittyAnimation(id: id, graphics: graphics, stager: KittyStager(medium: medium))
    }

    /// The terminal's cell size in pixels: the kernel's window size in pixels divided by its
    /// size in cells, else what the terminal reported; nil when neither is known.
    static func cellSize(fd: Int32, reported: RenderSize?) -> RenderSize? {
        var xp: Int32 = 0, yp: Int32 = 0, r: Int32 = 0, c: Int32 = 0
        if animplay_window_pixels(fd, &xp, &yp, &r, &c) != 0, xp > 0, yp > 0, r > 0, c > 0,
           xp / c > 0, yp / r > 0 {
            return RenderSize(width: Int(xp / c), height: Int(yp / r))
        }
        return reported
    }

    func syncCellSize() -> Bool {
        guard let now = Self.cellSize(fd: screen.outputFD, reported: reportedCell), now != cell else { return false }
        cell = now
        return true
    }

    func show(_ frame: ScaledFrame) { current = frame }

    func invalidate() {
        view.invalidate()
        placedAt = nil
    }

    /// What `--status` says: how many frames the terminal holds.
    var statusNote: String? {
        guard animation.imageSize != nil else { return nil }
        return animation.streams ? "kitty: \(animation.heldCount) frames held, rest streamed" : "kitty: \(animation.heldCount) frames held"
    }

    func present(at layout: RenderLayout, status: String?) {
        // ncurses first: the status line, and a cleared screen when the layout changed.
        view.present(empty, at: layout, status: status)
        guard let frame = current, !frame.payload.isEmpty else { return }
        var out: [UInt8] = screen.saveCursor
        if placedAt != layout {
            // New place or unknown screen: start the image again from this frame.
            animation.delete(to: &out)
            placedAt = layout
        }
        let start = out.count
        animation.show(frame, cursor: Array("\u{1B}[\(layout.row + 1);\(layout.column + 1)H".utf8), to: &out)
        guard out.count > start else { return }
        out += screen.restoreCursor
        TerminalOutput.write(screen.outputFD, out)
    }

    /// Deletes the image and every frame it holds (the last frame is printed again by
    /// `printLast` into the normal screen, where it stays).
    func leave() {
        var out: [UInt8] = []
        animation.delete(to: &out)
        if !out.isEmpty { TerminalOutput.write(screen.outputFD, out) }
    }

    func printLast() {
        guard let frame = current, !frame.payload.isEmpty else { return }
        var out: [UInt8] = []
        let (graphics, payload) = animation.transmission(frame.payload)
        graphics.transmitStill(size: frame.size, payload: payload, to: &out)
        out += [0x0D, 0x0A]
        TerminalOutput.write(1, out)
    }
}
