import CJPEG

/// JPEG stills through libjpeg-turbo (baseline, progressive, grey, YCbCr, RGB, Adobe CMYK/YCCK),
/// shown as browsers show them: EXIF orientation applied, CMYK taken as Adobe's inverted CMYK
/// (Chromium's formula), slow-integer IDCT and fancy upsampling (Chromium's settings).
///
/// The file is read into memory once (libjpeg decodes from a buffer); the headers are read
/// while opening and the pixels when the frame is drawn. A JPEG larger than the limits is
/// decoded straight to a smaller size with libjpeg's DCT scaling (1/8 to 7/8), when
/// `options.scaleDownStills` allows it; `info.scaledFrom` then says so. On a growing source
/// (a pipe, a download) it opens once the whole file is in, as a still PNG does.
package final class JPEGDecoder: AnimationDecoder {
    package let info: AnimationInfo
    /// The whole file.
    private let file: [UInt8]
    private let orientation: ExifOrientation
    /// libjpeg's scale, in eighths (8: full size).
    private let scaleNum: Int
    /// The decoded size before orientation.
    private let decodedWidth: Int, decodedHeight: Int
    private let limits: DecodeLimits

    /// Scans a progressive file may have (libjpeg-turbo's djpeg suggests a limit of this order
    /// against files of thousands of tiny scans).
    static let maxScans = 1000

    package init(source: ByteSource, options: DecodeOptions) throws(AnimatedError) {
        if source.isGrowing { throw .invalid("waiting for the whole JPEG") }
        file = try source.bytes(at: 0, length: source.count)
        guard file.count == source.count else { throw .unreadable("file changed while reading") }
        var header = animplay_jpeg_header()
        var message = [CChar](repeating: 0, count: 128)
        let rc = file.withUnsafeBufferPointer { animplay_jpeg_read_header($0.baseAddress, $0.count, &header, &message) }
        if rc != 0 { throw .invalid(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        orientation = file.withUnsafeBytes { ExifOrientation.ofJPEG($0) }
        let storedWidth = Int(header.width), storedHeight = Int(header.height)
        let (shownWidth, shownHeight) = orientation.swapsAxes ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
        // The canvas plus the decoded image before orientation.
        let scale = try StillScale.choose(width: shownWidth, height: shownHeight, limits: options.limits,
                                          scaledLimits: options.scaledStillLimits, allowed: options.scaleDownStills ? Array((1...8).reversed()) : [8],
                                          denominator: 8, workingCopies: 2)
        scaleNum = scale.numerator
        decodedWidth = (storedWidth * scaleNum + 7) / 8
        decodedHeight = (storedHeight * scaleNum + 7) / 8
        limits = options.limits
        let (w, h) = orientation.swapsAxes ? (decodedHeight, decodedWidth) : (decodedWidth, decodedHeight)
        var warnings: [String] = []
        if header.components == 4 && header.adobe == 0 {
            warnings.append("CMYK without an Adobe marker: read as Adobe's inverted CMYK, as browsers do")
        }
        let whole = FrameRect(x: 0, y: 0, width: w, height: h)
        var info = AnimationInfo(format: .jpeg, width: w, height: h,
                                 frames: [FrameInfo(rect: whole, delayMs: 0, dispose: .none, blend: .source, hasAlpha: false)],
                                 plays: 1, warnings: warnings, timing: options.timing)
        if scaleNum != 8 { info.scaledFrom = ImageSize(width: shownWidth, height: shownHeight) }
        info.orientation = orientation
        self.info = info
    }

    /// Decodes the image (scaled if it had to be) and draws it oriented onto `canvas`. Corrupt
    /// data that libjpeg works around (a truncated file) draws what decoded, then throws.
    package func blend(frame index: Int, onto canvas: Canvas) throws(AnimatedError) {
        guard canvas.width == info.width, canvas.height == info.height else {
            throw .invalid("canvas is \(canvas.width)x\(canvas.height), the image \(info.width)x\(info.height)")
        }
        var message = [CChar](repeating: 0, count: 128)
        var rc: Int32 = 0
        if orientation == .normal {
            rc = decode(into: canvas.pixels.baseAddress!, stride: canvas.rowBytes, message: &message)
        } else {
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: decodedWidth * decodedHeight * 4)
            defer { scratch.deallocate() }
            scratch.initialize(repeating: 0, count: decodedWidth * decodedHeight * 4)
            rc = decode(into: scratch, stride: decodedWidth * 4, message: &message)
            orientation.apply(scratch, width: decodedWidth, height: decodedHeight, stride: decodedWidth * 4, to: canvas)
        }
        // A warning about corrupt data that libjpeg worked around (extraneous bytes) is what
        // cameras write every day and browsers show silently; only a file that ends early is reported.
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if rc < 0 || (rc == 1 && text.hasPrefix("Premature end")) {
            throw .invalid(text)
        }
    }

    private func decode(into out: UnsafeMutablePointer<UInt8>, stride: Int, message: inout [CChar]) -> Int32 {
        file.withUnsafeBufferPointer {
            animplay_jpeg_decode_rgba($0.baseAddress, $0.count, UInt32(scaleNum), out, stride,
                                      UInt32(decodedWidth), UInt32(decodedHeight),
                                      max(limits.maxDecodedBytes, 64 << 20), Int32(Self.maxScans), &message)
        }
    }
}

/// JPEG (JFIF, Exif, Adobe; baseline and progressive) through libjpeg-turbo.
package struct JPEGCoder: ImageCoder {
    package init() {}
    package var name: String { "JPEG" }
    package func canDecode(head: [UInt8]) -> Bool {
        head.count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF        // SOI, then a marker
    }
    package func open(_ source: ByteSource, options: DecodeOptions) throws(AnimatedError) -> any AnimationDecoder {
        try JPEGDecoder(source: source, options: options)
    }
}
