/// The scale a still image is decoded at when it is larger than the limits: the largest of the
/// scales a decoder offers (`numerator / denominator`, sides rounded up as libjpeg does) whose
/// size fits, so the full-size pixels are never held.
struct StillScale: Equatable {
    var numerator: Int
    var denominator: Int

    /// `allowed` numerators, largest first (the first is normally `denominator`: full size).
    /// Throws the full-size limit error when none fits (or the size is invalid).
    static func choose(width: Int, height: Int, limits: DecodeLimits, allowed: [Int], denominator: Int,
                       workingCopies: Int) throws(AnimatedError) -> StillScale {
        let full: AnimatedError
        do {
            try limits.check(width: width, height: height, workingCopies: workingCopies)
            return StillScale(numerator: denominator, denominator: denominator)
        } catch {
            full = error
        }
        guard full.kind == .limitExceeded else { throw full }
        for n in allowed where n < denominator {
            let (w, h) = (scaled(width, n, denominator), scaled(height, n, denominator))
            if (try? limits.check(width: w, height: h, workingCopies: workingCopies)) != nil {
                return StillScale(numerator: n, denominator: denominator)
            }
        }
        throw full
    }

    /// `side * n / d`, rounded up (libjpeg's and libwebp's scaled sizes).
    static func scaled(_ side: Int, _ n: Int, _ d: Int) -> Int {
        let (p, o) = side.multipliedReportingOverflow(by: n)
        return o ? Int.max / d : (p + d - 1) / d
    }
}
