import CGIF

/// A 256-entry RGBA lookup table, each entry the four canvas bytes of one colour index as a
/// UInt32, so a pixel is one load and one store.
struct GIFPalette {
    let entries: UnsafeMutablePointer<UInt32>

    init() {
        entries = .allocate(capacity: 256)
        entries.initialize(repeating: GIFPalette.opaqueBlack, count: 256)
    }

    func deallocate() { entries.deallocate() }

    /// Indices beyond the colour table (or with no table at all) show as opaque black.
    static let opaqueBlack = pack(0, 0, 0)

    static func pack(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt32 {
        // Canvas byte order R, G, B, A whatever the host's endianness.
        UInt32(littleEndian: UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | 0xFF00_0000)
    }

    /// Loads `map` (the local table, else the global one).
    func load(_ map: UnsafeMutablePointer<ColorMapObject>?) {
        var n = 0
        if let map, let colors = map.pointee.Colors {
            n = min(max(Int(map.pointee.ColorCount), 0), 256)
            for i in 0..<n {
                let c = colors[i]
                entries[i] = Self.pack(c.Red, c.Green, c.Blue)
            }
        }
        if n < 256 { (entries + n).update(repeating: Self.opaqueBlack, count: 256 - n) }
    }
}

enum GIFRaster {
    /// Writes `count` colour indices from `src` onto the canvas row `dst` (4 bytes a pixel),
    /// leaving pixels whose index is `transparent` (-1: none) unchanged.
    @inline(__always)
    static func drawRow(_ src: UnsafePointer<UInt8>, count: Int, onto dst: UnsafeMutableRawPointer,
                        palette: UnsafePointer<UInt32>, transparent: Int) {
        if transparent < 0 {
            var i = 0
            while i < count {
                dst.storeBytes(of: palette[Int(src[i])], toByteOffset: i &<< 2, as: UInt32.self)
                i &+= 1
            }
        } else {
            // Eight indices at a time: runs of transparent pixels (what encoders emit for
            // "unchanged") are skipped without touching the canvas; mixed groups use a
            // branch-free select, since transparent and opaque pixels alternate unpredictably.
            let t = UInt64(truncatingIfNeeded: transparent) &* 0x0101_0101_0101_0101
            var i = 0
            while i &+ 8 <= count {
                let group = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
                if group != t {
                    for j in i..<(i &+ 8) {
                        let c = Int(src[j])
                        let old = dst.load(fromByteOffset: j &<< 2, as: UInt32.self)
                        dst.storeBytes(of: c == transparent ? old : palette[c], toByteOffset: j &<< 2, as: UInt32.self)
                    }
                }
                i &+= 8
            }
            while i < count {
                let c = Int(src[i])
                if c != transparent {
                    dst.storeBytes(of: palette[c], toByteOffset: i &<< 2, as: UInt32.self)
                }
                i &+= 1
            }
        }
    }

    /// `drawRow` for 16-bit indices (`GIFWideCodeLZW`); indices above 255 are opaque black.
    static func drawWideRow(_ src: UnsafePointer<UInt16>, count: Int, onto dst: UnsafeMutableRawPointer,
                            palette: UnsafePointer<UInt32>, transparent: Int) {
        for i in 0..<count {
            let c = Int(src[i])
            if c == transparent { continue }
            dst.storeBytes(of: c < 256 ? palette[c] : GIFPalette.opaqueBlack, toByteOffset: i * 4, as: UInt32.self)
        }
    }

    /// Interlaced GIFs store rows in four passes: every 8th row from 0, every 8th from 4,
    /// every 4th from 2, every 2nd from 1.
    static let interlacePasses: [(start: Int, step: Int)] = [(0, 8), (4, 8), (2, 4), (1, 2)]

    /// The image row stored at position `k` in the data.
    static func imageRow(stored k: Int, height: Int, interlaced: Bool) -> Int {
        guard interlaced else { return k }
        var k = k
        for p in interlacePasses {
            let rows = p.start < height ? (height - p.start + p.step - 1) / p.step : 0
            if k < rows { return p.start + k * p.step }
            k -= rows
        }
        return height     // beyond the image
    }

    /// How many stored rows must be decoded so that image rows `0..<visibleRows` are all drawn
    /// (rows below the canvas are not decoded at all).
    static func rowsToDecode(height: Int, visibleRows: Int, interlaced: Bool) -> Int {
        guard visibleRows > 0 else { return 0 }
        guard interlaced, visibleRows < height else { return min(visibleRows, height) }
        var stored = 0, needed = 0
        for p in interlacePasses {
            var y = p.start
            while y < height {
                stored += 1
                if y < visibleRows { needed = stored }
                y += p.step
            }
        }
        return needed
    }
}
