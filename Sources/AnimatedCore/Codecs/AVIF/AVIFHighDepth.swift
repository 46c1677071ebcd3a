import CAVIF

/// AVIF samples of more than 8 bits to 8-bit RGBA as Chromium 156 shows them, where that is not
/// what libavif 0.11's `avifImageYUVToRGB` gives.
///
/// Chromium's decoder (CrabbyAvif) converts through libyuv, which has high-bit-depth functions
/// for 10-bit 4:2:0, 4:2:2 and 4:4:4 and for 12-bit 4:2:0 only:
/// - their colour is libavif 0.11's (it calls the same functions), but the 10-bit ones with
///   alpha (`I410AlphaToARGB` and kin) cut alpha to 8 bits by a shift (a >> 2), where libavif
///   rounds (a · 255 / 1023);
/// - every other image of more than 8 bits (12-bit 4:2:2 and 4:4:4, and any monochrome 4:0:0)
///   has every plane cut to 8 bits by a shift first (`Convert16To8Plane`: v >> (depth − 8)) and
///   is then converted as an 8-bit image, whose conversion libavif 0.11 shares. A monochrome
///   image's alpha is the exception: libyuv's 4:0:0 function takes none, and CrabbyAvif rescales
///   it with rounding, as libavif does.
/// Found by reading CrabbyAvif (`reformat/libyuv.rs`: which function a format and depth get;
/// `downshift_to_8bit`), then checked against Chromium on 10- and 12-bit stills and sequences of
/// every subsampling, with and without alpha, premultiplied or not: up to 5 levels apart before
/// (a 10-bit premultiplied image up to 127, its colour divided by another alpha), identical after
/// (README).
enum AVIFHighDepth {
    enum Conversion: Equatable {
        /// libavif's conversion is Chromium's.
        case libavif
        /// libavif's, then alpha replaced by the alpha plane shifted right this many bits (of a
        /// premultiplied image, before its colour is divided by it, as CrabbyAvif does).
        case alphaShifted(Int)
        /// Every plane shifted right this many bits first (alpha too if `shiftsAlpha`, else
        /// rescaled with rounding), then converted as an 8-bit image.
        case downshifted(Int, shiftsAlpha: Bool)
    }

    /// Rows converted at once on the downshifted path (the 8-bit copy holds this many).
    static let stripRows = 16

    static func conversion(depth: Int, format: avifPixelFormat, matrix: avifMatrixCoefficients,
                           primaries: avifColorPrimaries, alpha: Bool, premultiplied: Bool) -> Conversion {
        guard depth > 8, libyuvConverts(format: format, matrix: matrix, primaries: primaries) else { return .libavif }
        if format == AVIF_PIXEL_FORMAT_YUV400 { return .downshifted(depth - 8, shiftsAlpha: false) }
        if depth == 12 && format != AVIF_PIXEL_FORMAT_YUV420 { return .downshifted(4, shiftsAlpha: true) }
        if depth == 10 && alpha { return .alphaShifted(2) }
        return .libavif
    }

    /// Whether CrabbyAvif converts with libyuv at all (`find_constants`: libyuv has constants for
    /// these matrices); the others (identity, as lossless files have, YCgCo, FCC…) go through
    /// CrabbyAvif's own code, whose results libavif 0.11's match where measured (identity, 10 and
    /// 12 bits with alpha). A monochrome image's identity matrix is taken as BT.601.
    static func libyuvConverts(format: avifPixelFormat, matrix: avifMatrixCoefficients,
                               primaries: avifColorPrimaries) -> Bool {
        let m = Int(matrix), p = Int(primaries)
        if m == Int(AVIF_MATRIX_COEFFICIENTS_IDENTITY) { return format == AVIF_PIXEL_FORMAT_YUV400 }
        let plain = [AVIF_MATRIX_COEFFICIENTS_BT709, AVIF_MATRIX_COEFFICIENTS_UNSPECIFIED, AVIF_MATRIX_COEFFICIENTS_BT470BG,
                     AVIF_MATRIX_COEFFICIENTS_BT601, AVIF_MATRIX_COEFFICIENTS_BT2020_NCL].map { Int($0) }
        if plain.contains(m) { return true }
        guard m == Int(AVIF_MATRIX_COEFFICIENTS_CHROMA_DERIVED_NCL) else { return false }
        return [AVIF_COLOR_PRIMARIES_BT709, AVIF_COLOR_PRIMARIES_UNSPECIFIED, AVIF_COLOR_PRIMARIES_BT470BG,
                AVIF_COLOR_PRIMARIES_BT601, AVIF_COLOR_PRIMARIES_BT2020].map { Int($0) }.contains(p)
    }

    /// `image` (or a view of some of its rows) as 8-bit RGBA, straight alpha, rows `rowBytes` apart.
    static func toRGBA(_ image: UnsafeMutablePointer<avifImage>, pixels: UnsafeMutablePointer<UInt8>,
                       rowBytes: Int) throws(AnimatedError) {
        let im = image.pointee
        let alpha = im.alphaPlane != nil, premultiplied = im.alphaPremultiplied != AVIF_FALSE
        switch conversion(depth: Int(im.depth), format: im.yuvFormat, matrix: im.matrixCoefficients,
                          primaries: im.colorPrimaries, alpha: alpha, premultiplied: premultiplied) {
        case .libavif:
            try libavif(image, pixels: pixels, rowBytes: rowBytes)
        case .alphaShifted(let shift):
            // A premultiplied image's colour stays premultiplied until its alpha is the shifted one.
            var rgb = try libavif(image, pixels: pixels, rowBytes: rowBytes, keepPremultiplied: premultiplied)
            guard let plane = im.alphaPlane else { return }
            for y in 0..<Int(im.height) {
                let src = UnsafeRawPointer(plane + y * Int(im.alphaRowBytes)).assumingMemoryBound(to: UInt16.self)
                let dst = pixels + y * rowBytes + 3
                for x in 0..<Int(im.width) { dst[x * 4] = UInt8(min(255, src[x] >> shift)) }
            }
            if premultiplied { try AVIFDecoder.check(animplay_avifRGBImageUnpremultiplyAlpha(&rgb)) }
        case .downshifted(let shift, let shiftsAlpha):
            try downshifted(image, shift: shift, shiftsAlpha: shiftsAlpha, pixels: pixels, rowBytes: rowBytes)
        }
    }

    /// libavif's conversion; straight alpha unless `keepPremultiplied` (a premultiplied image's
    /// colour left as it is). The RGB image it wrote (to unpremultiply later).
    @discardableResult
    private static func libavif(_ image: UnsafeMutablePointer<avifImage>, pixels: UnsafeMutablePointer<UInt8>,
                                rowBytes: Int, keepPremultiplied: Bool = false) throws(AnimatedError) -> avifRGBImage {
        var rgb = avifRGBImage()
        animplay_avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.alphaPremultiplied = keepPremultiplied ? AVIF_TRUE : AVIF_FALSE
        rgb.pixels = pixels
        rgb.rowBytes = UInt32(rowBytes)
        try AVIFDecoder.check(animplay_avifImageYUVToRGB(image, &rgb))
        return rgb
    }

    /// The planes shifted into an 8-bit copy a strip of rows at a time (no chroma subsampling
    /// across rows in these formats), each strip converted by libavif.
    private static func downshifted(_ image: UnsafeMutablePointer<avifImage>, shift: Int, shiftsAlpha: Bool,
                                    pixels: UnsafeMutablePointer<UInt8>, rowBytes: Int) throws(AnimatedError) {
        let im = image.pointee
        let width = Int(im.width), height = Int(im.height)
        let mono = im.yuvFormat == AVIF_PIXEL_FORMAT_YUV400
        let chromaWidth = im.yuvFormat == AVIF_PIXEL_FORMAT_YUV422 ? (width + 1) / 2 : width
        guard let small = animplay_avifImageCreate(UInt32(width), UInt32(min(stripRows, height)), 8, im.yuvFormat) else {
            throw .system("libavif could not make an image")
        }
        defer { animplay_avifImageDestroy(small) }
        small.pointee.yuvRange = im.yuvRange
        small.pointee.matrixCoefficients = im.matrixCoefficients
        small.pointee.colorPrimaries = im.colorPrimaries
        small.pointee.transferCharacteristics = im.transferCharacteristics
        small.pointee.alphaPremultiplied = im.alphaPremultiplied
        let alpha = im.alphaPlane != nil
        try AVIFDecoder.check(animplay_avifImageAllocatePlanes(small, (alpha ? AVIF_PLANES_ALL : AVIF_PLANES_YUV).rawValue))
        let planes = [im.yuvPlanes.0, im.yuvPlanes.1, im.yuvPlanes.2]
        let strides = [Int(im.yuvRowBytes.0), Int(im.yuvRowBytes.1), Int(im.yuvRowBytes.2)]
        let targets = [small.pointee.yuvPlanes.0, small.pointee.yuvPlanes.1, small.pointee.yuvPlanes.2]
        let targetStrides = [Int(small.pointee.yuvRowBytes.0), Int(small.pointee.yuvRowBytes.1),
                             Int(small.pointee.yuvRowBytes.2)]
        let maxAlpha = Float((1 << Int(im.depth)) - 1)
        var y0 = 0
        while y0 < height {
            let rows = min(stripRows, height - y0)
            small.pointee.height = UInt32(rows)
            for p in 0..<(mono ? 1 : 3) {
                guard let from = planes[p], let to = targets[p] else { throw .invalid("a colour plane is missing") }
                let w = p == 0 ? width : chromaWidth
                for r in 0..<rows {
                    let src = UnsafeRawPointer(from + (y0 + r) * strides[p]).assumingMemoryBound(to: UInt16.self)
                    let dst = to + r * targetStrides[p]
                    for x in 0..<w { dst[x] = UInt8(min(255, src[x] >> shift)) }
                }
            }
            if alpha, let from = im.alphaPlane, let to = small.pointee.alphaPlane {
                for r in 0..<rows {
                    let src = UnsafeRawPointer(from + (y0 + r) * Int(im.alphaRowBytes)).assumingMemoryBound(to: UInt16.self)
                    let dst = to + r * Int(small.pointee.alphaRowBytes)
                    if shiftsAlpha {
                        for x in 0..<width { dst[x] = UInt8(min(255, src[x] >> shift)) }
                    } else {
                        // CrabbyAvif's rescale, in float: 0.5 + v / max · 255, truncated.
                        for x in 0..<width { dst[x] = UInt8(min(255, 0.5 + Float(src[x]) / maxAlpha * 255)) }
                    }
                }
            }
            try libavif(small, pixels: pixels + y0 * rowBytes, rowBytes: rowBytes)
            y0 += rows
        }
    }
}
