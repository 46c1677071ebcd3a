/// Marks keyframes: frames from which a replay that starts on a transparent canvas produces the
/// same pixels as compositing from frame 0. Random access replays from the nearest one.
enum KeyframeAnalysis {
    static func mark(_ frames: inout [FrameInfo], width: Int, height: Int) {
        var emptyBefore = true       // canvas is fully transparent before frame k
        for k in frames.indices {
            let f = frames[k]
            let covers = f.rect.covers(width: width, height: height)
            let independent = emptyBefore || (covers && (f.blend == .source || !f.hasAlpha))
            // Dispose-previous restores the canvas from before k, which a replay only knows
            // when it was empty (dispose-previous on frame 0 therefore acts as background).
            frames[k].keyframe = independent && (f.dispose != .previous || emptyBefore)
            switch f.dispose {
            case .none: emptyBefore = false
            // Only the rect is cleared; outside it the canvas is what it was before k.
            case .background: emptyBefore = covers || emptyBefore
            case .previous: break     // back to the state before k
            }
        }
    }
}
