/// Writes an animation frame by frame (YYImageEncoder's job, streaming): composited RGBA frames go
/// in one at a time with how long each is shown, and the file comes out of an `EncoderSink`.
/// Memory stays bounded by a few canvases (WebP: plus the compressed output, which
/// WebPAnimEncoder keeps until it assembles the file).
///
/// Durations are display times (what a browser should show); each encoder rounds them to what
/// its format can store without ever writing a delay a browser would change (`DelaySchedule`).
/// An encoder is used from one thread at a time.
public protocol AnimationEncoder: AnyObject {
    /// Adds the next frame: `canvas` (the encoder's size, straight alpha) shown for `durationMs`.
    /// The canvas is only read during the call.
    func add(_ canvas: Canvas, durationMs: Double) throws(AnimatedError)

    /// Writes the end of the file. Nothing may be added after.
    func finish() throws(AnimatedError)

    /// How many frames spread over the animation the encoder would like to see before the
    /// first `add` (0: none; the GIF encoder makes one palette from them).
    var wantedSamples: Int { get }

    /// A frame of the animation, given before any `add` to plan with (not written).
    func addSample(_ canvas: Canvas) throws(AnimatedError)
}

extension AnimationEncoder {
    /// Encoders that plan nothing want no samples.
    public var wantedSamples: Int { 0 }
    public func addSample(_ canvas: Canvas) throws(AnimatedError) {}
}

/// The three formats animplay writes.
public enum EncodedFormat: String, Sendable, CaseIterable {
    case gif, apng, webp

    /// The format a file name's extension asks for (.gif, .png/.apng, .webp), if any.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "gif": self = .gif
        case "png", "apng": self = .apng
        case "webp": self = .webp
        default: return nil
        }
    }
}

/// What the encoders may trade: one struct for all three, each reads what applies to it.
public struct EncoderOptions: Sendable, Equatable {
    /// WebP: lossless (VP8L) frames. APNG is always lossless; GIF is exact for frames of at most
    /// 256 colours whatever this says.
    public var lossless: Bool
    /// 0...100. WebP lossy: picture quality; WebP lossless: effort. GIF: libimagequant's target
    /// quality for frames that must be quantised, and how far a pixel may drift before it counts
    /// as changed (100: never).
    public var quality: Double
    /// WebP: choose lossy or lossless per frame, whichever is smaller (`allow_mixed`).
    public var mixed: Bool
    /// WebP: the least keyframe interval (`kmin`); nil: libwebp's default.
    public var keyframeMin: Int?
    /// WebP: the greatest keyframe interval (`kmax`); nil: libwebp's default.
    public var keyframeMax: Int?
    /// WebP lossless: keep the colour of fully transparent pixels (byte-exact frames). Off (the
    /// default, as gif2webp and cwebp), libwebp may change it, which often compresses better and
    /// which no viewer shows: a pixel of alpha 0 looks the same whatever its colour.
    public var keepTransparentColor = false
    /// WebP: compression method 0 (fast) ... 6 (small).
    public var method: Int
    /// GIF: Floyd–Steinberg dithering of quantised frames (libimagequant).
    public var dither: Bool
    /// GIF: reuse the first frame's palette as the global colour table where a frame fits in it
    /// (otherwise every frame has a local table).
    public var globalPalette: Bool
    /// GIF (no partial alpha): partially transparent pixels are blended over this colour, and
    /// the result is opaque. nil: alpha below 128 is transparent, the rest opaque.
    public var background: (red: UInt8, green: UInt8, blue: UInt8)? {
        get { backgroundRGB.map { (UInt8($0 >> 16), UInt8(($0 >> 8) & 0xFF), UInt8($0 & 0xFF)) } }
        set { backgroundRGB = newValue.map { UInt32($0.red) << 16 | UInt32($0.green) << 8 | UInt32($0.blue) } }
    }
    var backgroundRGB: UInt32?

    /// Lossless WebP, quality 75, method 4, dithered GIF with a global palette where it fits.
    public init(lossless: Bool = true, quality: Double = 75, mixed: Bool = false,
                keyframeMin: Int? = nil, keyframeMax: Int? = nil, method: Int = 4,
                dither: Bool = true, globalPalette: Bool = true) {
        self.lossless = lossless; self.quality = quality; self.mixed = mixed
        self.keyframeMin = keyframeMin; self.keyframeMax = keyframeMax; self.method = method
        self.dither = dither; self.globalPalette = globalPalette
    }
}

/// Makes the encoder of a format.
public enum AnimationEncoders {
    /// An encoder of `format` for `width`×`height` frames played `plays` times (0 = forever),
    /// writing into `sink`.
    public static func make(_ format: EncodedFormat, width: Int, height: Int, plays: Int,
                            options: EncoderOptions, sink: any EncoderSink) throws(AnimatedError) -> any AnimationEncoder {
        let side = format == .gif ? 0xFFFF : format == .webp ? 16383 : 0x7FFF_FFFF
        guard width > 0, height > 0, width <= side, height <= side else {
            throw .output("\(format.rawValue.uppercased()) cannot hold a \(width)x\(height) canvas (at most \(side) pixels a side)")
        }
        switch format {
        case .gif: return try GIFAnimationEncoder(width: width, height: height, plays: plays, options: options, sink: sink)
        case .apng: return try APNGAnimationEncoder(width: width, height: height, plays: plays, options: options, sink: sink)
        case .webp: return try WebPAnimationEncoder(width: width, height: height, plays: plays, options: options, sink: sink)
        }
    }
}
