/// One image format AnimatedCore can open (SDWebImage's `SDImageCoder`): it recognises its
/// files from their first bytes and opens them as an `AnimationDecoder`. Register one with
/// `CoderRegistry.shared.add(_:)` and every way of opening an image (a file, a folder, a sprite
/// sheet, standard input, a URL) can read the format.
///
/// `Sendable`: a coder is a description of a format, used from any thread; the decoders it
/// opens are used from one thread at a time.
public protocol ImageCoder: Sendable {
    /// A short name for messages and lists ("GIF", "JPEG").
    var name: String { get }

    /// Whether `head`, the first `CoderRegistry.headLength` bytes of the input (fewer if the
    /// input is shorter), starts a file of this format. Must not need the rest of the file.
    func canDecode(head: [UInt8]) -> Bool

    /// Opens `source` (whose head this coder recognised). Throws `AnimatedError`, with
    /// `.invalid` meaning the bytes so far are not enough or not valid: on a growing source the
    /// loader tries again when more arrive.
    func open(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> any AnimationDecoder
}

/// GIF87a / GIF89a: records through giflib, image data through `GIFLZWDecoder`.
package struct GIFCoder: ImageCoder {
    package init() {}
    package var name: String { "GIF" }
    package func canDecode(head: [UInt8]) -> Bool {
        head.count >= 6 && head[0..<4].elementsEqual([0x47, 0x49, 0x46, 0x38])          // GIF8
            && (head[4] == 0x37 || head[4] == 0x39) && head[5] == 0x61                   // 7a / 9a
    }
    package func open(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> any AnimationDecoder {
        try GIFDecoder(source: source, options: options)
    }
}

/// PNG and APNG through libpng.
package struct PNGCoder: ImageCoder {
    package init() {}
    package var name: String { "PNG" }
    package func canDecode(head: [UInt8]) -> Bool {
        head.count >= 8 && head[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
    package func open(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> any AnimationDecoder {
        try APNGDecoder(source: source, options: options)
    }
}

/// WebP (still and animated) through libwebp and libwebpdemux.
package struct WebPCoder: ImageCoder {
    package init() {}
    package var name: String { "WebP" }
    package func canDecode(head: [UInt8]) -> Bool {
        head.count >= 12 && head[0..<4].elementsEqual([0x52, 0x49, 0x46, 0x46])        // RIFF
            && head[8..<12].elementsEqual([0x57, 0x45, 0x42, 0x50])                     // WEBP
    }
    package func open(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> any AnimationDecoder {
        try WebPDecoder(source: source, options: options)
    }
}
