/// A file's decoder opened on a thread of its own (`AnimationLoader.open`: sniffing the format
/// and indexing every frame, 3–7 ms for the 10 MB benchmark GIF) while the caller does other
/// work first; `decoder()` waits for it. The CLI starts one before it parses its arguments
/// (`EarlyStart`). Dropped untaken, it waits for its thread.
///
/// @unchecked Sendable: made on one thread and taken on another (handed over through a lock),
/// used by one at a time: `thread` only by its holder; the outcome written by the side thread
/// alone until it is joined, read by the holder alone afterwards (the join orders the two), and
/// never read once the thread was let go unjoined (`detach`).
package final class DecoderAhead: @unchecked Sendable {
    package let path: String
    package let options: DecodeOptions
    private var thread: ProducerThread?
    private let outcome = Outcome()
    /// The side thread was let go unjoined: its outcome is never read (it may still be written).
    private var detached = false

    /// What the side thread found. @unchecked Sendable: see the type's doc.
    private final class Outcome: @unchecked Sendable {
        var result: Result<any AnimationDecoder, AnimatedError>?
    }

    /// Starts opening `path` with `options`. If no thread can be started, `decoder()` opens it.
    package init(path: String, options: DecodeOptions) {
        self.path = path
        self.options = options
        let outcome = outcome
        thread = try? ProducerThread(what: "opening") {
            outcome.result = Result { () throws(AnimatedError) -> any AnimationDecoder in
                try AnimationLoader.open(ByteSource(path: path), options: options)
            }
        }
    }

    deinit { thread?.join() }

    /// Lets the side thread run on unjoined, for a caller that will not take the decoder (the
    /// process is about to exit): dropping this object then does not wait for it. What the
    /// thread opens is left to it; `decoder()` opens the file again.
    package func detach() {
        guard let thread else { return }
        thread.detach()
        self.thread = nil
        detached = true
    }

    /// The decoder, or the error opening the file gave (as `AnimationLoader.open` would have
    /// given it on the caller's thread). The first call takes what the side thread opened; a
    /// later one opens the file again.
    package func decoder() throws(AnimatedError) -> any AnimationDecoder {
        thread?.join()
        thread = nil
        if !detached, let result = outcome.result {
            outcome.result = nil
            return try result.get()
        }
        return try AnimationLoader.open(ByteSource(path: path), options: options)
    }
}
