/// Chooses a codec from the first bytes (SDWebImage's coder plugins), never the file name.
enum FormatSniffer {
    enum Kind: Sendable, Equatable { case gif, png, webp }

    static func sniff(_ head: [UInt8]) -> Kind? {
        if head.count >= 6, head[0] == 0x47, head[1] == 0x49, head[2] == 0x46, head[3] == 0x38,
           head[4] == 0x37 || head[4] == 0x39, head[5] == 0x61 { return .gif }         // GIF87a/89a
        if head.count >= 8, head[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return .png
        }
        if head.count >= 12, head[0..<4].elementsEqual([0x52, 0x49, 0x46, 0x46]),       // RIFF
           head[8..<12].elementsEqual([0x57, 0x45, 0x42, 0x50]) { return .webp }       // WEBP
        return nil
    }
}

/// Opens any supported file as an `AnimationDecoder`.
public enum AnimationLoader {
    /// Whether `head` (the first 16 bytes or more) starts a GIF, PNG/APNG or WebP file: a
    /// stream that does not can be refused before the rest arrives.
    public static func recognizes(_ head: [UInt8]) -> Bool { FormatSniffer.sniff(head) != nil }

    /// Opens the file at `path` with the codec its first bytes name.
    public static func open(path: String, options: DecodeOptions = DecodeOptions()) throws(AnimatedError) -> any AnimationDecoder {
        try open(ByteSource(path: path), options: options)
    }

    /// Opens `source` with the codec its first bytes name (GIF, PNG/APNG, WebP).
    public static func open(_ source: ByteSource, options: DecodeOptions = DecodeOptions()) throws(AnimatedError) -> any AnimationDecoder {
        if source.count == 0 { throw .invalid("empty file") }
        let head = try source.bytes(at: 0, length: 16)
        switch FormatSniffer.sniff(head) {
        case .gif: return try GIFDecoder(source: source, options: options)
        case .png: return try APNGDecoder(source: source, options: options)
        case .webp: return try WebPDecoder(source: source, options: options)
        case nil: throw .unsupportedFormat("not a GIF, PNG/APNG or WebP file")
        }
    }
}
