@testable import AnimatedCore
import FuzzSupport

/// libFuzzer entry for the encoders, driven through the decoders (see Fuzz/run.sh): whatever
/// animplay decodes from the input (GIF, APNG or WebP) is encoded as APNG, lossless WebP and GIF,
/// and decoded again. APNG gives every frame back byte for byte with its time; lossless WebP the
/// same pictures for the same times (WebPAnimEncoder merges repeated frames); GIF the same where
/// every frame fits a GIF palette (`fitsGIF`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let source = ByteSource(bytes: UnsafeBufferPointer(start: data, count: size))
    guard let decoder = try? AnimationLoader.open(source, options: FuzzSupport.options),
          let compositor = try? Compositor(decoder: decoder) else { return 0 }
    let info = decoder.info
    // Small inputs only: the encoders' cost is per pixel, the interesting paths are per frame.
    guard info.width * info.height <= 1 << 14 else { return 0 }
    let count = min(info.frameCount, 12)
    var frames: [[UInt8]] = []
    var ms: [Double] = []
    for i in 0..<count { frames.append(compositor.frame(at: i).snapshot()); ms.append(info.displayMs(at: i)) }
    // WebP with `exact`: byte-exact frames, transparent pixels' colour included (the default,
    // inexact, is checked by Tests/encoders/roundtrip.py).
    var options = EncoderOptions()
    options.keepTransparentColor = true
    for format in EncodedFormat.allCases {
        let sink = MemorySink()
        do {
            let encoder = try AnimationEncoders.make(format, width: info.width, height: info.height, plays: info.plays,
                                                     options: options, sink: sink)
            // As `convert` does: samples first (the GIF encoder's shared palette), then the frames.
            for i in [0, count - 1] where encoder.wantedSamples > 0 { try encoder.addSample(compositor.frame(at: i)) }
            for i in 0..<count { try encoder.add(compositor.frame(at: i), durationMs: ms[i]) }
            try encoder.finish()
        } catch {
            preconditionFailure("\(format) encoder failed on decodable frames: \(error)")
        }
        guard let back = try? AnimationLoader.open(ByteSource(bytes: sink.bytes), options: FuzzSupport.options),
              let again = try? Compositor(decoder: back) else {
            preconditionFailure("\(format) output does not decode")
        }
        var got: [[UInt8]] = []
        var gotMs: [Double] = []
        for i in 0..<back.info.frameCount { got.append(again.frame(at: i).snapshot()); gotMs.append(back.info.displayMs(at: i)) }
        precondition(again.problems.isEmpty, "\(format) output has damaged frames: \(again.problems)")
        switch format {
        case .apng:
            precondition(got == frames, "APNG frames differ")
        case .webp:
            precondition(runs(got, gotMs).map(\.0) == runs(frames, ms).map(\.0) || (got.count == 1 && Set(frames).count == 1),
                         "WebP pictures differ")
        case .gif:
            if frames.allSatisfy(fitsGIF) {
                precondition(got.map(normalised) == frames.map(normalised), "GIF frames differ")
            }
        }
    }
    return 0
}

/// Runs of identical frames: (frame, total time).
private func runs(_ frames: [[UInt8]], _ ms: [Double]) -> [([UInt8], Double)] {
    var out: [([UInt8], Double)] = []
    for (f, d) in zip(frames, ms) {
        if let last = out.last, last.0 == f { out[out.count - 1].1 += d } else { out.append((f, d)) }
    }
    return out
}

/// Alpha only 0 or 255, and at most 256 opaque colours, 255 if any pixel is transparent (GIF's
/// 256 palette entries include the transparent one).
private func fitsGIF(_ f: [UInt8]) -> Bool {
    var colors = Set<UInt32>()
    var transparent = false
    for i in stride(from: 0, to: f.count, by: 4) {
        let a = f[i + 3]
        if a != 0 && a != 255 { return false }
        if a == 255 { colors.insert(UInt32(f[i]) << 16 | UInt32(f[i + 1]) << 8 | UInt32(f[i + 2])) } else { transparent = true }
        if colors.count > 256 { return false }
    }
    return colors.count + (transparent ? 1 : 0) <= 256
}

/// Transparent pixels as (0, 0, 0, 0).
private func normalised(_ f: [UInt8]) -> [UInt8] {
    var f = f
    for i in stride(from: 0, to: f.count, by: 4) where f[i + 3] == 0 { f[i] = 0; f[i + 1] = 0; f[i + 2] = 0 }
    return f
}
