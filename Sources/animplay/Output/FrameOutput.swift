import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// What goes to the terminal during playback: one implementation per way of showing pixels
/// (`CellOutput`: half-block cells; `KittyOutput`: real pixels; sixel and iTerm2 follow on the
/// same interface).
///
/// An output works on both of the player's threads:
/// - `preparer` runs on the frame buffer's producer thread. It scales each composited canvas to
///   the render size (fitted in `cell`-sized pixels) and encodes it as this output needs; the
///   buffer holds what it returns (`ScaledFrame.pixels` and/or `.payload`) within its byte
///   budget, so encoded frames cost what they weigh.
/// - everything else runs on the display thread and only writes: `show` takes the frame due,
///   `present` puts it and the status line on screen.
///
/// Adding an output: a `FrameScaler` that prepares its frames (in AnimatedCore when it is pure
/// encoding, so tests can parse it back), a class conforming to this protocol that writes them,
/// its case in `GraphicsOptions.choose` (after `GraphicsPolicy` picked the protocol), and where
/// `Play.play()` builds the output (with cells as its `fallback`).
protocol FrameOutput: AnyObject {
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
    /// A few words for the status line about what the terminal holds (nil: nothing to say).
    var statusNote: String? { get }
    /// A terminal error that makes this output unusable (the loop then falls back to cells).
    var failure: String? { get }
    /// What went wrong, for the warning ("the terminal refused kitty graphics").
    var failureSubject: String { get }
    /// Before the screen is restored: removes what should not outlive playback.
    func leave()
    /// After the screen is restored: prints the last frame at the cursor (like `cat`).
    func printLast()
}

extension FrameOutput {
    var failureSubject: String { "the graphics output failed" }
}
