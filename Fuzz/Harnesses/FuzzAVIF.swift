@testable import AnimatedCore
import FuzzSupport

/// libFuzzer entry for the AVIF decoder (libavif; see Fuzz/run.sh).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzSupport.exercise(data, size) { source throws(AnimatedError) in
        try AVIFDecoder(source: source, options: FuzzSupport.options)
    }
    return 0
}
