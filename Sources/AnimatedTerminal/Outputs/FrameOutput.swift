import AnimatedCore

/// What goes to the terminal during playback: one implementation per way of showing pixels
/// (`CellOutput`: cells; `KittyOutput`: kitty graphics; `InlineImageOutput`: sixel and
/// iTerm2), each built by `OutputPlan.build` and writing to a `TerminalSink`.
///
/// An output works on both of the player's threads:
/// - `preparer` runs on the frame buffer's producer thread. It scales each composited canvas to
///   the render size (fitted in `cell`-sized pixels) and encodes it as this output needs; the
///   buffer holds what it returns (`ScaledFrame.pixels` and/or `.payload`) within its byte
///   budget, so encoded frames cost what they weigh.
/// - everything else runs on the display thread and only writes: `show` takes the frame due,
///   `present` puts it and the status line on screen.
///
/// A still image is the same output: `show` frame 0, then `printLast`.
///
/// Adding an output: a `FrameScaler` that prepares its frames, a class conforming to this
/// protocol that writes them, and its case in `OutputPlan` (decided in `OutputPlan.decide`,
/// built in `OutputPlan.build`).
public protocol FrameOutput: AnyObject {
    /// Pixels per character cell: layouts are computed in these (1×2 for half blocks).
    var cell: RenderSize { get }
    /// Prepares frames on the producer thread (give it to `Player`).
    var preparer: any FrameScaler { get }
    /// True once a frame has been shown.
    var hasFrame: Bool { get }
    /// The frame due (prepared by `preparer`); drawn by the next `present`.
    func show(_ frame: ScaledFrame)
    /// Draws the current frame at `layout` (cells from the screen's top-left) and the status
    /// line on the bottom row (nil: none).
    func present(at layout: RenderLayout, status: String?)
    /// The terminal's contents are unknown (resize, resume): the next `present` redraws all.
    func invalidate()
    /// Re-reads the cell size after a resize; true if it changed (the layout must be redone).
    func syncCellSize() -> Bool
    /// Graphics replies the key reader took out of the input (kitty's `ESC _ G i=…;message`):
    /// an output that sent the commands acts on them (an error sets `failure`).
    func accept(replies: [(id: UInt32?, message: String)])
    /// A few words for the status line about what the terminal holds (nil: nothing to say).
    var statusNote: String? { get }
    /// A terminal error that makes this output unusable (the loop then falls back to cells).
    var failure: String? { get }
    /// What went wrong, for the warning ("the terminal refused kitty graphics").
    var failureSubject: String { get }
    /// Before the screen is restored: removes what should not outlive playback.
    func leave()
    /// After the screen is restored (or for a still, without a screen): prints the last frame
    /// at the cursor, like `cat`, `indent` columns from the left: where it was while playing
    /// (centred).
    func printLast(indent: Int)
    /// Playback in the normal screen (`InlineRegion`) ends: the frame on screen must stay there
    /// without the output. Default: nothing to do (cells and inline images are the screen's
    /// own text); kitty turns its animated image into a still.
    func keepInPlace()
    /// Before the first frame is shown: writes its payload while it is prepared (`stream`,
    /// from `Player.takeFrameStream`) if this output can, returning once the stream ends. The
    /// frame, shown when it comes, is then not written again. Default: nothing (the frame is
    /// written when it comes).
    func writeAhead(_ stream: FrameStream, at layout: RenderLayout, status: String?)
}

extension FrameOutput {
    /// The last frame at the cursor's column (a still).
    public func printLast() { printLast(indent: 0) }

    public var failureSubject: String { "the graphics output failed" }
    public func accept(replies: [(id: UInt32?, message: String)]) {}
    public func keepInPlace() {}
    public func writeAhead(_ stream: FrameStream, at layout: RenderLayout, status: String?) {}
}
