/// A decoder that may have drawn frame 0 already, on a canvas of its own (`FirstFrameAhead`):
/// a `Compositor` takes that canvas instead of zeroing one and drawing frame 0 again. Here, in
/// the compositor's layer, so that the compositor does not depend on playback's types.
package protocol FrameZeroAhead: AnyObject {
    /// Frame 0 drawn on a transparent canvas of the animation's size, and the error its data
    /// gave if any; nil when there is none to take. At most once: afterwards nil.
    func takeFrameZero() -> (canvas: Canvas, error: AnimatedError?)?
}
