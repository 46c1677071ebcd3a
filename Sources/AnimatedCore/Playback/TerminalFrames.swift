/// Where an output that keeps frames in the terminal (kitty: every frame uploaded stays in the
/// terminal's image) tells the player's frame buffer what the terminal holds, so that the buffer
/// does not keep a second copy: a frame the terminal holds is kept as a placeholder
/// (`ScaledFrame.isPlaceholder`), and the display only asks the terminal to show it.
///
/// Used on the display thread, by the output, between `Player.update` calls. Made by
/// `Player.terminalFrames()`. A player whose preparer keeps frames in the terminal
/// (`TerminalKeepsFrames`) prepares only a few seconds ahead.
package struct TerminalFrames: Sendable {
    let buffer: FrameBuffer

    /// The terminal keeps `frame` (just sent, prepared by the player's preparer): its data is
    /// no longer needed here. Later `Player.update`s may return it as a placeholder.
    package func holds(_ frame: ScaledFrame) {
        buffer.release(frame.index, size: frame.size)
    }

    /// The terminal no longer holds the frames it was sent (their image was deleted): they are
    /// prepared again, and the next `Player.update` returns the frame due with its data (once
    /// the producer has made it; the schedule waits for it as for any frame not ready).
    package func lost() {
        buffer.reload()
    }
}

/// A preparer whose frames the terminal keeps once they are sent (kitty's): a player using it
/// prepares only a quarter of its budget ahead from the start (see `FrameBuffer.lookahead`).
package protocol TerminalKeepsFrames: FrameScaler {}

extension ScaledFrame {
    /// A frame the terminal holds, kept without its data: index, size and format only.
    package var isPlaceholder: Bool { byteCount == 0 }

    /// This frame without its data (what the buffer keeps for a frame the terminal holds).
    var placeholder: ScaledFrame {
        ScaledFrame(index: index, size: size, pixels: [], payload: [], channels: channels)
    }
}
