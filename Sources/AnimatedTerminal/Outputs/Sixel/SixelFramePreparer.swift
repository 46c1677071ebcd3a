import Synchronization
import AnimatedCore

/// Prepares frames for the sixel output on the producer thread: scales the canvas, flattens it
/// over the background and encodes it with `SixelEncoder`; the frame buffer holds only the
/// sixel bytes (`payload`), so later plays re-send them without encoding again.
///
/// The encoder keeps state between frames (the shared palette) and scratch memory, so it lives
/// behind a mutex: the producer thread is its only user in practice, the lock only makes that
/// safe to rely on.
package final class SixelFramePreparer: FrameScaler {
    package let scaler: any FrameScaler
    private let encoder: Mutex<SixelEncoder>

    /// `registers`: the terminal's colour registers (XTSMGRAPHICS), 256 at most.
    package init(registers: Int, background: BackgroundMode, scaler: any FrameScaler = AreaAverageScaler()) {
        self.scaler = scaler
        encoder = Mutex(SixelEncoder(registers: registers, background: background))
    }

    package func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        let frame = scaler.scale(canvas, index: index, to: size)
        let sixel = encoder.withLock { $0.encode(frame) }
        return ScaledFrame(index: index, size: frame.size, pixels: [], payload: sixel)
    }

    /// Palettes built so far (1: one palette served the whole animation).
    package var palettesBuilt: Int { encoder.withLock { $0.palettesBuilt } }
}
