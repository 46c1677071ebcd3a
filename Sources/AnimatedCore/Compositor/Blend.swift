/// Pixel blending onto a canvas. Non-premultiplied RGBA throughout; OVER is the exact
/// Porter-Duff formula rounded to nearest (so 128 nearly-transparent frames still converge).
/// APNG uses it (the spec's reference); animated WebP uses `WebPBlend`, the browser's formula.
enum Blend {
    /// Blends `count` RGBA pixels from `src` onto `dst`.
    @inline(__always)
    static func row(_ src: UnsafePointer<UInt8>, onto dst: UnsafeMutablePointer<UInt8>,
                           count: Int, op: BlendOp) {
        if op == .source {
            dst.update(from: src, count: count * 4)
            return
        }
        var i = 0
        let n = count * 4
        while i < n {
            let sa = Int(src[i + 3])
            if sa == 255 {
                dst[i] = src[i]; dst[i + 1] = src[i + 1]; dst[i + 2] = src[i + 2]; dst[i + 3] = 255
            } else if sa != 0 {
                let da = Int(dst[i + 3])
                if da == 0 {
                    dst[i] = src[i]; dst[i + 1] = src[i + 1]; dst[i + 2] = src[i + 2]
                    dst[i + 3] = UInt8(truncatingIfNeeded: sa)
                } else {
                    overPixel(src + i, dst + i, sa: sa, da: da)
                }
            }
            i &+= 4
        }
    }

    /// One pixel of exact OVER with 0 < sa < 255 and da > 0. (A shared reciprocal instead of
    /// three divisions measured no faster here: the loop is bound by memory, not the divider.)
    @inline(__always)
    static func overPixel(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, sa: Int, da: Int) {
        let dw = da &* (255 &- sa)             // destination weight, scaled by 255
        let sw = sa &* 255                     // source weight, scaled by 255
        let a255 = sw &+ dw                    // result alpha scaled by 255
        let half = a255 >> 1
        d[0] = UInt8(truncatingIfNeeded: (Int(s[0]) &* sw &+ Int(d[0]) &* dw &+ half) / a255)
        d[1] = UInt8(truncatingIfNeeded: (Int(s[1]) &* sw &+ Int(d[1]) &* dw &+ half) / a255)
        d[2] = UInt8(truncatingIfNeeded: (Int(s[2]) &* sw &+ Int(d[2]) &* dw &+ half) / a255)
        d[3] = UInt8(truncatingIfNeeded: (a255 &+ 127) / 255)
    }

    /// Blends a `width`×`height` RGBA image (rows `srcStride` bytes apart) placed at (`x`, `y`)
    /// onto `canvas`, clipped to the canvas.
    static func image(_ src: UnsafePointer<UInt8>, width: Int, height: Int, srcStride: Int,
                             at x: Int, _ y: Int, onto canvas: Canvas, op: BlendOp) {
        let r = FrameRect(x: x, y: y, width: width, height: height)
            .clipped(toWidth: canvas.width, height: canvas.height)
        guard !r.isEmpty else { return }
        let dstBase = canvas.pixels.baseAddress!
        let sx = r.x - x, sy = r.y - y
        for row in 0..<r.height {
            let s = src + (sy + row) * srcStride + sx * 4
            let d = dstBase + ((r.y + row) * canvas.width + r.x) * 4
            Blend.row(s, onto: d, count: r.width, op: op)
        }
    }
}

/// Animated WebP's blend, as browsers do it: libwebp's `WebPAnimDecoder` (`BlendPixelNonPremult`
/// in anim_decode.c) and Chromium (`BlendSrcOverDstNonPremultiplied`, blink image_frame.cc) use
/// the same integer formula, which rounds down: the destination weight is
/// `da * (256 - sa) >> 8`, and each channel is `(s*sa + d*dw) * (2^24 / a) >> 24`. A source
/// alpha of 255 copies, 0 keeps the destination. Unlike exact OVER this is not the identity over
/// a transparent pixel (a channel can lose one), which is why WebP keyframes copy instead.
enum WebPBlend {
    /// Blends `count` RGBA pixels from `src` onto `dst`.
    @inline(__always)
    static func row(_ src: UnsafePointer<UInt8>, onto dst: UnsafeMutablePointer<UInt8>, count: Int) {
        var i = 0
        let n = count &* 4
        while i < n {
            let sa = UInt32(src[i &+ 3])
            if sa == 255 {
                dst[i] = src[i]; dst[i &+ 1] = src[i &+ 1]; dst[i &+ 2] = src[i &+ 2]; dst[i &+ 3] = 255
            } else if sa != 0 {
                // All in UInt32 as in C: the products stay below 2^32 (libwebp asserts it).
                let dw = (UInt32(dst[i &+ 3]) &* (256 &- sa)) >> 8
                let a = sa &+ dw                         // < 256, and > 0 since sa > 0
                let scale = (1 << 24) / a
                dst[i] = UInt8(truncatingIfNeeded: ((UInt32(src[i]) &* sa &+ UInt32(dst[i]) &* dw) &* scale) >> 24)
                dst[i &+ 1] = UInt8(truncatingIfNeeded: ((UInt32(src[i &+ 1]) &* sa &+ UInt32(dst[i &+ 1]) &* dw) &* scale) >> 24)
                dst[i &+ 2] = UInt8(truncatingIfNeeded: ((UInt32(src[i &+ 2]) &* sa &+ UInt32(dst[i &+ 2]) &* dw) &* scale) >> 24)
                dst[i &+ 3] = UInt8(truncatingIfNeeded: a)
            }
            i &+= 4
        }
    }
}
