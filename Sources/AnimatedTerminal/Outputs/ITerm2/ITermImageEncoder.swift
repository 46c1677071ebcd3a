import CPNG
import AnimatedCore

/// Encodes whole frames as iTerm2 inline images: a PNG (libpng) in
/// `OSC 1337 ; File=inline=1;size=N;width=C;height=R;preserveAspectRatio=0;doNotMoveCursor=1 : <base64> BEL`,
/// sized in cells (`C` × `R`), drawn from the cursor position, which stays where it was.
///
/// Frames are flattened over the background first (like sixel): an image with transparent
/// pixels would let the previous frame show through in some terminals.
/// zlib level 1 with the "up" filter: frames are sent once and cached, so encoding time counts
/// more than the last few percent of size.
package final class ITermImageEncoder {
    package let background: BackgroundMode
    package let terminalColor: (UInt8, UInt8, UInt8)?

    package init(background: BackgroundMode, terminalColor: (UInt8, UInt8, UInt8)? = nil) {
        self.background = background
        self.terminalColor = terminalColor
    }

    /// The frame as one OSC 1337 sequence filling `columns` × `rows` cells; empty when the PNG
    /// could not be encoded (out of memory).
    package func encode(_ frame: ScaledFrame, columns: Int, rows: Int) -> [UInt8] {
        Self.sequence(payload: payload(frame), columns: columns, rows: rows)
    }

    /// The base64 of the frame's PNG (what the frame buffer holds); empty on failure.
    package func payload(_ frame: ScaledFrame) -> [UInt8] {
        let opaque = OpaqueFrame(frame, background: background, terminalColor: terminalColor)
        guard let png = Self.png(opaque) else { return [] }
        return png.withUnsafeBytes { Base64.encode($0) }
    }

    /// The OSC 1337 sequence showing a `payload` in `columns` × `rows` cells; empty for an
    /// empty payload. `moveCursor`: the cursor ends below the image (printing like `cat`)
    /// instead of staying where it was (playback).
    package static func sequence(payload: [UInt8], columns: Int, rows: Int, moveCursor: Bool = false) -> [UInt8] {
        guard !payload.isEmpty else { return [] }
        let padding = payload.suffix(2).filter { $0 == 0x3D }.count
        let size = payload.count / 4 * 3 - padding
        var out = Array("\u{1B}]1337;File=inline=1;size=\(size);width=\(columns);height=\(rows);preserveAspectRatio=0;doNotMoveCursor=\(moveCursor ? 0 : 1):".utf8)
        out.reserveCapacity(out.count + payload.count + 1)
        out += payload
        out.append(0x07)
        return out
    }

    /// `frame` as a PNG file's bytes.
    static func png(_ frame: OpaqueFrame) -> [UInt8]? {
        var buffer = animplay_png_buffer(data: nil, length: 0, capacity: 0, failed: 0)
        defer { animplay_png_buffer_free(&buffer) }
        let w = frame.size.width, h = frame.size.height
        guard w > 0, h > 0 else { return nil }
        let status = frame.rgb.withUnsafeBufferPointer {
            animplay_png_encode_rgb($0.baseAddress, UInt32(w), UInt32(h), w * 3, 1, &buffer)
        }
        guard status == 0, let data = buffer.data else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: buffer.length))
    }
}
