/// APNG codec. (Skeleton: to be implemented.)
public final class APNGDecoder: AnimationDecoder {
    public let info: AnimationInfo
    let source: ByteSource

    public init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        self.source = source
        throw .unsupportedFormat("APNG decoding is not implemented yet")
    }

    public func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        throw .invalid("not implemented")
    }
}
