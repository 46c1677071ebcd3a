import Synchronization

/// The payload of a frame while it is being prepared, in order, for an output that can send it
/// as it grows: the first frame of a play, with nothing on screen yet.
///
/// Why: a terminal reads a pseudo-terminal 4 KB at a time, so a large payload takes a while to
/// reach it after it is written. The first sixel image of a `--fill` play (255 KB at 1200×675)
/// was written only once its last band was encoded, and the benchmark's reader had all of it
/// 5.5–10 ms after the first byte: written band by band meanwhile, the terminal reads while the
/// rest is encoded. Likewise a kitty upload sent inline (over ssh) goes out as its zlib stream
/// is made.
///
/// The producer thread appends (`append`) and then ends the stream (`end`). The display thread
/// `drain`s it: the bytes that have come are written at once, and each later piece by the
/// producer's thread inside `append`, so that no thread has to wake up for it (on two busy
/// cores a woken display thread waited milliseconds for one). A preparer appends all of a
/// payload or nothing (`StreamingFrameScaler`); `end` checks that the pieces make up the frame
/// delivered (`complete`), so an output that wrote them knows whether the frame is on screen or
/// must be written as usual.
///
/// @unchecked Sendable: the state is only touched under the monitor's lock, and the writer it
/// holds (not Sendable: it writes to the display's terminal) is only called under that lock
/// while `drain` waits for the end, i.e. by one thread at a time while the display thread is
/// inside `drain` doing nothing else, and never after `drain` returns.
public final class FrameStream: @unchecked Sendable {
    /// The frame and its size.
    public let index: Int
    public let size: RenderSize

    private struct State: @unchecked Sendable {
        var pending: [[UInt8]] = []
        var bytes = 0
        var ended = false
        var complete = false
        var drained = false
        var writer: ((UnsafeRawBufferPointer) -> Void)?
    }
    private let monitor = Monitor(State())
    /// See `channels` (apart from the monitor: the display reads it inside `drain`'s writer,
    /// which runs under the monitor's lock).
    private let declaredChannels = Atomic<Int>(0)
    /// Called once, with the first bytes (the display may be asleep, waiting for the frame).
    private let firstBytes: @Sendable () -> Void

    package init(index: Int, size: RenderSize, firstBytes: @escaping @Sendable () -> Void = {}) {
        self.index = index; self.size = size; self.firstBytes = firstBytes
    }

    // MARK: producer

    /// Appends the payload's next bytes: written now if the display drains the stream, else
    /// kept (copied) until it does.
    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let first = monitor.withLock { s -> Bool in
            guard !s.ended else { return false }
            let first = s.bytes == 0
            s.bytes += bytes.count
            if let writer = s.writer { writer(bytes) } else { s.pending.append([UInt8](bytes)) }
            return first
        }
        if first { firstBytes() }
    }

    /// What the payload's pixels are, for an output that must say so before their first byte
    /// (a kitty upload's `f=24` or `f=32`): declared by a preparer before its first `append`.
    public func declare(channels: Int) {
        declaredChannels.store(channels, ordering: .releasing)
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

    /// The channels the preparer declared (3: RGB, 4: RGBA), 0 if it declared none; known by
    /// the first byte.
    public var channels: Int { declaredChannels.load(ordering: .acquiring) }

    /// True once some bytes have come.
    public var hasBytes: Bool { monitor.withLock { $0.bytes > 0 } }

    /// Writes the whole stream through `write`, in order, and returns once it has ended: what
    /// has come, on this thread, then each later piece on the producer's thread as it is
    /// appended (one thread at a time; never after this returns). Returns whether the stream
    /// was complete (see `end`). A stream drains once: a later call writes nothing and returns
    /// false.
    public func drain(through write: @escaping (UnsafeRawBufferPointer) -> Void) -> Bool {
        var mine = false
        return monitor.wait { s -> MonitorStep<Bool> in
            if !s.drained {
                s.drained = true
                mine = true
                for piece in s.pending { piece.withUnsafeBytes { write($0) } }
                s.pending = []
                s.writer = write
            }
            guard s.ended else { return .sleep(notify: false) }
            s.writer = nil
            return .done(mine && s.complete)
        } ?? false
    }

    /// Whether the pieces make up the whole payload of the frame delivered (false until `end`).
    public var complete: Bool { monitor.withLock { $0.complete } }
}

/// A scaler that can hand its frame's payload over while it makes it (`FrameStream`).
public protocol StreamingFrameScaler: FrameScaler {
    /// As `scale(_:index:to:)`, appending to `stream` every byte of the frame's payload, in
    /// order, as it is made, or none (the output then waits for the frame as usual). The
    /// producer ends the stream.
    func scale(_ canvas: Canvas, index: Int, to size: RenderSize, streaming stream: FrameStream) -> ScaledFrame
}
