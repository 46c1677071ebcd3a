extension AnimationLoader {
    /// A decoder on a spool that is being filled (standard input, a pipe, a download). The bytes
    /// are read to their end first, unless `progressive`: then an animation opens as soon as its
    /// header and first frame are in, on a source that keeps growing (the caller keeps the spool
    /// to follow it). A still PNG waits for the end.
    public static func open(spool: SpoolBuffer, options: DecodeOptions = DecodeOptions(),
                            progressive: Bool) throws(AnimatedError) -> any AnimationDecoder {
        let headLength = CoderRegistry.headLength
        var seen = spool.waitForMore(than: headLength - 1)!
        let head = try ByteSource(spool: spool).bytes(at: 0, length: headLength)
        let known = AnimationLoader.recognizes(head, coders: options.coders)
        // Not an image (an HTML page, say): no need to wait for the rest.
        if !known && head.count == headLength { throw .unsupportedFormat("not a \(options.coders.formatList) file") }
        if progressive && !seen.finished {
            if known {
                while !seen.finished {
                    let source = ByteSource(spool: spool)
                    do {
                        return try AnimationLoader.open(source, options: options)
                    } catch {
                        // Header or first frame not complete yet: wait for more and try again.
                        guard error.kind == .invalid, source.isGrowing else { throw error }
                    }
                    seen = spool.waitForMore(than: source.count)!
                }
            }
        }
        let end = spool.waitUntilFinished()
        if let failure = end.failure, end.count == 0 || end.fatal { throw .unreadable(failure) }
        if end.count == 0 { throw .invalid("empty input") }
        return try AnimationLoader.open(ByteSource(spool: spool), options: options)
    }
}
