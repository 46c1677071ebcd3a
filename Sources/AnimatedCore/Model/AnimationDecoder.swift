/// What every codec provides (YYAnimatedImage's small protocol): the headers, and the pixels of
/// one frame blended onto a canvas. Disposal, ordering and random access belong to `Compositor`.
///
/// A decoder is used from one thread at a time.
public protocol AnimationDecoder: AnyObject {
    /// Canvas size, frames, timing and plays, read from the headers without decoding pixels.
    var info: AnimationInfo { get }

    /// Decodes frame `index` and blends its pixels onto `canvas` inside the frame rect (clipped),
    /// using the frame's blend op. It must not apply disposal. Frames may be requested in any
    /// order. A throw means the frame's data is corrupt: what was drawn before the error stays.
    func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError)

    /// For a source that is still growing (`info.provisional`): takes in the bytes that arrived
    /// since, extending `info` (frames are only ever appended). True if `info` changed.
    func refresh() throws(AnimatedError) -> Bool
}

extension AnimationDecoder {
    /// Decoders of complete data have nothing to refresh.
    public func refresh() throws(AnimatedError) -> Bool { false }
}
