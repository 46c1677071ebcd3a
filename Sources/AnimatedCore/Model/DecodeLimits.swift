/// Resource limits checked from the headers, before any pixel memory is allocated.
public struct DecodeLimits: Sendable, Equatable {
    /// Largest canvas side, in pixels.
    public var maxDimension: Int
    /// Largest canvas area, in pixels.
    public var maxPixels: Int
    /// Largest number of frames indexed.
    public var maxFrames: Int
    /// Cap on the pixel memory a decoder may hold at once (canvas, saved copy, frame scratch).
    /// Raised past `MemoryCeiling.current.bytes`, it lets a file ask for more than the process
    /// can get (a failed allocation is fatal): the CLI holds it there.
    public var maxDecodedBytes: Int

    /// 65535 per side (GIF's own maximum: a 1x65535 strip is legitimate) and 2^25 pixels (an 8K
    /// UHD frame, 7680x4320, fits; an 8192² or 65535² bomb does not), 512 MiB of pixels. A
    /// canvas, a saved dispose-previous copy and a decoder's scratch frame at the limit peak at
    /// about 400 MiB RSS (2^26 pixels let a 180-byte WebP reach 780 MiB; Tests/hostile).
    public static let `default` = DecodeLimits(maxDimension: 65535, maxPixels: 1 << 25,
                                               maxFrames: 1 << 20, maxDecodedBytes: 1 << 29)

    /// Limits on canvas side, canvas pixels, frame count and decoded bytes.
    public init(maxDimension: Int, maxPixels: Int, maxFrames: Int, maxDecodedBytes: Int) {
        self.maxDimension = maxDimension; self.maxPixels = maxPixels
        self.maxFrames = maxFrames; self.maxDecodedBytes = maxDecodedBytes
    }

    /// Throws unless a `width`×`height` canvas (and the decoder's working copies) fits.
    public func check(width: Int, height: Int, workingCopies: Int = 3) throws(AnimatedError) {
        guard width > 0, height > 0 else {
            throw .invalid("canvas is \(width)x\(height)")
        }
        guard width <= maxDimension, height <= maxDimension else {
            throw .limitExceeded("canvas \(width)x\(height) exceeds \(maxDimension) pixels per side")
        }
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        guard !o1, pixels <= maxPixels else {
            throw .limitExceeded("canvas \(width)x\(height) exceeds \(maxPixels) pixels")
        }
        // Overflow-proof: with the limits raised to Int.max, a PNG of 2^31-1 a side made the
        // product trap (Int.max bytes is as far as any count goes).
        let (bytes, o2) = pixels.multipliedReportingOverflow(by: 4 * max(1, workingCopies))
        guard !o2, bytes <= maxDecodedBytes else {
            throw .limitExceeded("canvas \(width)x\(height) needs \(o2 ? "more bytes than a count holds" : Self.size(bytes)), limit \(Self.size(maxDecodedBytes))")
        }
    }

    /// "36 KiB", "12 MiB": rounded up, in KiB below a MiB (a small canvas never "needs 0 MiB").
    static func size(_ bytes: Int) -> String {
        // Rounded up without adding first: a limit may be as large as Int.max.
        let up = { (unit: Int) in bytes / unit + (bytes % unit == 0 ? 0 : 1) }
        return bytes < 1 << 20 ? "\(up(1 << 10)) KiB" : "\(up(1 << 20)) MiB"
    }
}

/// Options every decoder takes.
public struct DecodeOptions: Sendable {
    /// What a file may ask for before it is refused.
    public var limits: DecodeLimits
    /// How stored delays become display delays.
    public var timing: TimingPolicy
    /// The coders an input is opened with (the shared registry unless the caller keeps its own).
    public var coders: CoderRegistry
    /// A still image larger than `limits` is decoded straight to a smaller size that fits
    /// (`AnimationInfo.scaledFrom` says so) instead of being refused. Animations are refused.
    public var scaleDownStills = true
    /// The most pixels a still scaled down for the limits is decoded to (8 Mpx: more than a 4K
    /// screen shows; a 20000×20000 PNG then needs 32 MiB of canvas, not 1.6 GB).
    public var scaledStillMaxPixels = 1 << 23

    /// Whether a decoder opened with these options is the one `other` would open: every field
    /// that decides what is decoded and how it is timed (a decoder opened ahead is used only
    /// then: the CLI's `EarlyStart`).
    package func opensAlike(_ other: DecodeOptions) -> Bool {
        limits == other.limits && timing == other.timing && coders === other.coders
            && scaleDownStills == other.scaleDownStills && scaledStillMaxPixels == other.scaledStillMaxPixels
    }

    /// The limits a scaled-down still must fit: `limits` with at most `scaledStillMaxPixels`.
    var scaledStillLimits: DecodeLimits {
        var l = limits
        l.maxPixels = min(l.maxPixels, scaledStillMaxPixels)
        return l
    }
    /// Options; by default, the default limits, browser timing and the shared coders.
    public init(limits: DecodeLimits = .default, timing: TimingPolicy = TimingPolicy(),
                coders: CoderRegistry = .shared) {
        self.limits = limits; self.timing = timing; self.coders = coders
    }
}
