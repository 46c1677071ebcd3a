/// The scale a still image is decoded at when it is larger than the limits: the largest of the
/// scales a decoder offers (`numerator / denominator`, sides rounded up as libjpeg does) whose
/// size fits, so the full-size pixels are never held.
struct StillScale: Equatable {
    var numerator: Int
    var denominator: Int

    /// `allowed` numerators, largest first (the first is normally `denominator`: full size).
    /// Throws the full-size limit error when none fits (or the size is invalid).
    static func choose(width: Int, height: Int, limits: DecodeLimits, scaledLimits: DecodeLimits? = nil,
                       allowed: [Int], denominator: Int, workingCopies: Int) throws(AnimatedError) -> StillScale {
        let scaledLimits = scaledLimits ?? limits
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
            if (try? scaledLimits.check(width: w, height: h, workingCopies: workingCopies)) != nil {
                return StillScale(numerator: n, denominator: denominator)
            }
        }
        throw full
    }

    /// The smallest whole factor k ≥ 2 that reduces `width`×`height` (sides rounded up) into
    /// `limits`, or nil.
    static func boxFactor(width: Int, height: Int, limits: DecodeLimits, workingCopies: Int) -> Int? {
        let budget = Double(max(1, limits.maxPixels))
        var k = max(2, Int((Double(width) * Double(height) / budget).squareRoot().rounded(.up)))
        while k <= max(width, height) {
            if (try? limits.check(width: (width + k - 1) / k, height: (height + k - 1) / k, workingCopies: workingCopies)) != nil {
                return k
            }
            k += 1
        }
        return nil
    }

    /// `side * n / d`, rounded up (libjpeg's and libwebp's scaled sizes).
    static func scaled(_ side: Int, _ n: Int, _ d: Int) -> Int {
        let (p, o) = side.multipliedReportingOverflow(by: n)
        return o ? Int.max / d : (p + d - 1) / d
    }
}
