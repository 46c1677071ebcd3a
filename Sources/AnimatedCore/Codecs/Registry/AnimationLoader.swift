/// Opens any input as an `AnimationDecoder` with the coder its first bytes name (see
/// `CoderRegistry`; `options.coders` decides which coders are tried).
public enum AnimationLoader {
    /// Whether `head` (the first `CoderRegistry.headLength` bytes, or all of a shorter input)
    /// starts a file some coder of `coders` reads: a stream that does not can be refused before
    /// the rest arrives.
    public static func recognizes(_ head: [UInt8], coders: CoderRegistry = .shared) -> Bool {
        coders.coder(for: head) != nil
    }

    /// Opens the file at `path` with the coder its first bytes name.
    public static func open(path: String, options: DecodeOptions = DecodeOptions()) throws(AnimatedError) -> any AnimationDecoder {
        try open(ByteSource(path: path), options: options)
    }

    /// Opens `source` with the coder its first bytes name.
    public static func open(_ source: ByteSource, options: DecodeOptions = DecodeOptions()) throws(AnimatedError) -> any AnimationDecoder {
        if source.count == 0 { throw .invalid("empty file") }
        let head = try source.bytes(at: 0, length: CoderRegistry.headLength)
        guard let coder = options.coders.coder(for: head) else {
            throw .unsupportedFormat("not a \(options.coders.formatList) file")
        }
        return try coder.open(source, options: options)
    }
}
