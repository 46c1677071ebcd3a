import AnimatedCore

/// Prepares frames for the iTerm2 output on the producer thread: scales, flattens over the
/// background, encodes a PNG and base64s it (`payload`); the display adds the OSC 1337 header,
/// which depends on the cells the image covers.
package struct ITermFramePreparer: FrameScaler {
    package let scaler: any FrameScaler
    package let background: BackgroundMode

    package init(background: BackgroundMode, scaler: any FrameScaler = AreaAverageScaler()) {
        self.scaler = scaler; self.background = background
    }

    package func scale(_ canvas: Canvas, index: Int, to size: RenderSize) -> ScaledFrame {
        let frame = scaler.scale(canvas, index: index, to: size)
        let payload = ITermImageEncoder(background: background).payload(frame)
        return ScaledFrame(index: index, size: frame.size, pixels: [], payload: payload)
    }
}
