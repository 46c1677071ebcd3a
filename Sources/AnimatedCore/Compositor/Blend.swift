/// Pixel blending onto a canvas. Non-premultiplied RGBA throughout; OVER is Porter-Duff OVER
/// as Chromium computes it for APNG (`overPixel`), within rounding of the exact formula (so
/// 128 nearly-transparent frames still converge). Animated WebP uses `WebPBlend`, the
/// browser's formula there.
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

    /// One pixel of OVER with 0 < sa < 255 and da > 0, as Chromium's PNG decoder blends it
    /// (Skia's raster pipeline in float, `SkPngRustCodec`'s `blendRow`, see `chromiumChannel`).
    /// That is exact OVER rounded to nearest except where the exact value lies within float
    /// error of a half, so the exact integer formula is used, and the float one only near a
    /// half: within about 2e-4 of one (the division's remainder within `a255/5000 + 1` of
    /// it: 2 122 698 of the 4 227 858 432 channel cases, every s, d, sa 1–254, da 1–255). Over
    /// all those cases the two formulas differ on 215 841, every one within 5.9e-5 of a half,
    /// and the alpha never; the integer result outside the band equals the float one on every
    /// case (both checked exhaustively). Cost, on random pairs in a micro-benchmark: 5.7 ns a
    /// pixel, the integer formula alone 5.6, the float pipeline on every pixel 16.
    @inline(__always)
    static func overPixel(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, sa: Int, da: Int) {
        let dw = da &* (255 &- sa)             // destination weight, scaled by 255
        let sw = sa &* 255                     // source weight, scaled by 255
        let a255 = sw &+ dw                    // result alpha scaled by 255
        let half = a255 >> 1
        let band = a255 / 5000 &+ 1, high = a255 &- band
        for c in 0..<3 {
            let (q, m) = (Int(s[c]) &* sw &+ Int(d[c]) &* dw &+ half).quotientAndRemainder(dividingBy: a255)
            d[c] = m < band || m >= high ? chromiumChannel(Int(s[c]), Int(d[c]), sa: sa, da: da)
                                         : UInt8(truncatingIfNeeded: q)
        }
        d[3] = UInt8(truncatingIfNeeded: (a255 &+ 127) / 255)
    }

    /// One colour channel of OVER as Skia's raster pipeline computes it: channels loaded as
    /// `c · (1/255)`, premultiplied, `s + d·(1 − sa)` fused (one rounding: Skia's `mad` is an
    /// FMA on every CPU with one, every x86-64 since 2013 and every ARM64), scaled back by
    /// `1/a`, clamped and stored as `c·255` rounded half to even. Chromium's bytes for 65 536
    /// random pairs and 1024 near-halves (`BrowserReferenceTests`). The same on every machine:
    /// `fused` is exact without an FMA instruction, and neither it nor `unorm` calls libm.
    /// Never inlined: inlined, its float work was hoisted out of `overPixel`'s rare branch and
    /// done for every pixel (a file of partly transparent layers: 8.6 ns a pixel instead of 5.5).
    @inline(never)
    static func chromiumChannel(_ s: Int, _ d: Int, sa: Int, da: Int) -> UInt8 {
        let k: Float = 1 / 255
        let sa = Float(sa) * k, da = Float(da) * k
        let inv = 1 - sa
        let a = fused(da, inv, sa)
        return unorm(fused(Float(d) * k * da, inv, Float(s) * k * sa) * (1 / a))
    }

    /// `x·y + z` rounded once, for x, y, z ≥ 0 (floats well above the subnormals, or 0). The
    /// product is exact in Double (24 + 24 bits); rounding the Double sum to Float is then
    /// right unless that sum was itself rounded onto a tie between two floats (its 29 bits below
    /// a float's precision 1 followed by zeros), and there the sum's exact error (Knuth's
    /// two-sum) says which way the true value lies.
    @inline(__always)
    static func fused(_ x: Float, _ y: Float, _ z: Float) -> Float {
        let p = Double(x) * Double(y), q = Double(z)
        let sum = p + q
        guard sum.bitPattern & 0x1FFF_FFFF == 0x1000_0000 else { return Float(sum) }
        let back = sum - p
        let error = (p - (sum - back)) + (q - back)
        return Float(error > 0 ? sum.nextUp : error < 0 ? sum.nextDown : sum)
    }

    /// A float channel (0…1, clamped) as a byte: `v·255` rounded half to even, as Skia stores
    /// it. Adding 2^23 rounds a float below 2^22 to an integer, half to even (no `rintf`).
    @inline(__always)
    static func unorm(_ v: Float) -> UInt8 {
        let magic: Float = 8_388_608
        return UInt8((min(max(v, 0), 1) * 255 + magic) - magic)
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
