/// The payload of a frame while it is being prepared, in order, for an output that can send it
/// as it grows: the first frame of a play, with nothing on screen yet.
///
/// Why: a terminal reads a pseudo-terminal 4 KB at a time, so a large payload takes a while to
/// reach it after it is written. The first sixel image of a `--fill` play (255 KB at 1200×675)
/// was written only once its last band was encoded, and the benchmark's reader had all of it
/// 6–8 ms after the first byte: written band by band meanwhile, the terminal reads while the
/// rest is encoded.
///
/// The producer thread appends (`append`) and then ends the stream (`end`); the display thread
/// takes what has come (`chunks(after:)`), sleeping until more comes or the stream ends. A
/// preparer appends all of a payload or nothing (`StreamingFrameScaler`); `end` checks that the
/// chunks make up the frame delivered (`complete`), so an output that wrote them knows whether
/// the frame is on screen or must be written as usual.
///
/// Sendable: its state lives in a `Monitor`; the chunks handed out are immutable arrays.
public final class FrameStream: Sendable {
    /// The frame and its size.
    public let index: Int
    public let size: RenderSize

    private struct State: Sendable {
        var chunks: [[UInt8]] = []
        var bytes = 0
        var ended = false
        var complete = false
    }
    private let monitor = Monitor(State())
    /// Called once, with the first bytes (the display may be asleep, waiting for the frame).
    private let firstBytes: @Sendable () -> Void

    package init(index: Int, size: RenderSize, firstBytes: @escaping @Sendable () -> Void = {}) {
        self.index = index; self.size = size; self.firstBytes = firstBytes
    }

    // MARK: producer

    /// Appends the payload's next bytes (copied).
    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let chunk = [UInt8](bytes)
        let first = monitor.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.chunks.append(chunk)
            s.bytes += chunk.count
            return s.chunks.count == 1
        }
        monitor.broadcast()
        if first { firstBytes() }
    }

    /// The frame is made: its payload is `payloadBytes` long. The stream is complete if what was
    /// appended is all of it (a preparer that did not stream appended nothing).
    package func end(payloadBytes: Int) {
        monitor.withLock { s in
            s.ended = true
            s.complete = s.bytes > 0 && s.bytes == payloadBytes
        }
        monitor.broadcast()
    }

    // MARK: display

    /// True once some bytes have come.
    public var hasBytes: Bool { monitor.withLock { $0.bytes > 0 } }

    /// The chunks after the first `taken`, once there are some or the stream has ended (then
    /// `ended` is true, and the chunks returned are the last).
    public func chunks(after taken: Int) -> (chunks: [[UInt8]], ended: Bool) {
        monitor.wait { s in
            if s.chunks.count > taken || s.ended {
                return .done((Array(s.chunks[min(taken, s.chunks.count)...]), s.ended))
            }
            return .sleep(notify: false)
        } ?? ([], true)
    }

    /// Whether the chunks make up the whole payload of the frame delivered (false until `end`).
    public var complete: Bool { monitor.withLock { $0.complete } }
}

/// A scaler that can hand its frame's payload over while it makes it (`FrameStream`).
public protocol StreamingFrameScaler: FrameScaler {
    /// As `scale(_:index:to:)`, appending to `stream` every byte of the frame's payload, in
    /// order, as it is made, or none (the output then waits for the frame as usual). The
    /// producer ends the stream.
    func scale(_ canvas: Canvas, index: Int, to size: RenderSize, streaming stream: FrameStream) -> ScaledFrame
}
