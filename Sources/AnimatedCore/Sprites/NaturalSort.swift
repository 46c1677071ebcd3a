/// File-name order as people expect it: runs of digits compare by value ("frame2" before
/// "frame10"), letters compare ignoring ASCII case. Ties fall back to fewer leading zeros, then
/// to the bytes, so the order is total and deterministic.
enum NaturalSort {
    static func less(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    /// Sorts `names` naturally.
    static func sorted(_ names: [String]) -> [String] { names.sorted(by: less) }

    /// -1, 0 or 1.
    static func compare(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        var i = 0, j = 0
        var zerosTie = 0                         // first difference in leading zeros
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                // Skip leading zeros, then the longer run of significant digits is larger;
                // equal lengths compare digit by digit (no integer conversion: no overflow).
                let zi = i, zj = j
                while i < x.count && x[i] == 0x30 { i += 1 }
                while j < y.count && y[j] == 0x30 { j += 1 }
                let si = i, sj = j
                while i < x.count && isDigit(x[i]) { i += 1 }
                while j < y.count && isDigit(y[j]) { j += 1 }
                let li = i - si, lj = j - sj
                if li != lj { return li < lj ? -1 : 1 }
                for k in 0..<li where x[si + k] != y[sj + k] { return x[si + k] < y[sj + k] ? -1 : 1 }
                if zerosTie == 0 && (si - zi) != (sj - zj) { zerosTie = (si - zi) < (sj - zj) ? -1 : 1 }
                continue
            }
            let cx = fold(x[i]), cy = fold(y[j])
            if cx != cy { return cx < cy ? -1 : 1 }
            i += 1; j += 1
        }
        let restX = x.count - i, restY = y.count - j
        if restX != restY { return restX < restY ? -1 : 1 }
        if zerosTie != 0 { return zerosTie }
        return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
    }

    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    @inline(__always) private static func fold(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c + 0x20 : c }
}
