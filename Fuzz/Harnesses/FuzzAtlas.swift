@testable import AnimatedCore

/// libFuzzer entry for the sprite-atlas JSON reader (TexturePacker/Aseprite), see Fuzz/run.sh.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let atlas = try? AtlasParser.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    precondition(!atlas.frames.isEmpty, "atlas without frames accepted")
    for f in atlas.frames { _ = f.sheetRect }
    _ = try? atlas.playOrder(tag: nil)
    for t in atlas.tags { _ = try? atlas.playOrder(tag: t.name) }
    return 0
}
