import CImageQuant
import CLazyLib
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `animplay_lazy_load`, which opens libpng, libjpeg, libwebp, libavif and libimagequant on
/// first use: the messages a user gets when a library is missing or too old, and the pointers it fills.
@Suite struct LazyLibraryTests {
    /// Runs the loader on `sonames` for `names`; its message (nil: loaded) and the slots.
    private func load(_ library: String, _ sonames: [String], _ names: [String],
                      optional: Set<String> = []) -> (String?, [UnsafeMutableRawPointer?]) {
        var slots = [UnsafeMutableRawPointer?](repeating: nil, count: names.count)
        var message = [CChar](repeating: 0, count: 128)
        let cNames = names.map { strdup($0) }, cSonames = sonames.map { strdup($0) } + [nil]
        defer { (cNames + cSonames).forEach { free($0) } }
        let text: String? = slots.withUnsafeMutableBufferPointer { slot in
            let symbols = names.indices.map { i in
                animplay_lazy_symbol(name: cNames[i], slot: slot.baseAddress! + i, optional: optional.contains(names[i]) ? 1 : 0)
            }
            return cSonames.map { UnsafePointer($0) }.withUnsafeBufferPointer { so in
                symbols.withUnsafeBufferPointer { sym in
                    animplay_lazy_load(library, so.baseAddress, sym.baseAddress, names.count, &message, message.count)
                        .map { String(cString: $0) }
                }
            }
        }
        return (text, slots)
    }

    @Test func aMissingLibraryIsNamedWithTheSonameTried() {
        let (message, slots) = load("libnothing", ["libanimplay-absent.so.9", "libanimplay-absent.so"], ["f"])
        #expect(message == "libnothing is not installed (libanimplay-absent.so.9)")
        #expect(slots == [nil])
    }

    @Test func theNextSonameIsTriedWhenTheFirstIsMissing() {
        let (message, slots) = load("zlib", ["libanimplay-absent.so.9", "libz.so.1"], ["zlibVersion", "crc32"])
        #expect(message == nil)
        #expect(slots.allSatisfy { $0 != nil })
        // The pointer is zlib's own function: called, it answers as zlib does.
        typealias Version = @convention(c) () -> UnsafePointer<CChar>
        if let slot = slots[0] {
            let version = unsafeBitCast(slot, to: Version.self)
            #expect(String(cString: version()).first?.isNumber == true)
        }
    }

    @Test func aFunctionTheLibraryLacksIsNamed() {
        let (message, _) = load("zlib", ["libz.so.1"], ["crc32", "animplay_no_such_function"])
        #expect(message == "the installed zlib lacks animplay_no_such_function")
    }

    /// libimagequant's OpenMP thread setting (an optional function of its libgomp) is found
    /// whenever the libimagequant loaded brought libgomp into the process (Debian's does).
    @Test func libimagequantsThreadSettingIsFoundWithItsLibgomp() throws {
        try #require(animplay_liq_load() == nil, "libimagequant (scripts/install-deps installs it)")
        let maps = try #require(fopen("/proc/self/maps", "r"))
        defer { fclose(maps) }
        var line = [CChar](repeating: 0, count: 4096), gomp = false
        while fgets(&line, Int32(line.count), maps) != nil {
            if String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("libgomp") { gomp = true }
        }
        #expect(animplay_liq_one_thread() == (gomp ? 1 : 0))
    }

    /// An optional function (libgomp's thread setting, which libimagequant brings only when
    /// built with OpenMP) may be missing: the library loads, its slot stays empty, the others
    /// after it are filled.
    @Test func anOptionalFunctionMayBeMissing() {
        let (message, slots) = load("zlib", ["libz.so.1"], ["crc32", "animplay_no_such_function", "zlibVersion"],
                                    optional: ["animplay_no_such_function"])
        #expect(message == nil)
        #expect(slots[0] != nil && slots[1] == nil && slots[2] != nil)
    }
}
