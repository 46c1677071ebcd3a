/// At most 256 opaque colours and their palette indexes: an open-addressing hash set of UInt32
/// pixels (alpha 255, so 0 marks an empty slot), allocated once and cleared per frame.
final class ColorTable {
    private let slots: UnsafeMutableBufferPointer<UInt32>
    private let indexes: UnsafeMutableBufferPointer<UInt8>
    private static let capacity = 1024   // a power of two, 4x the most colours kept
    /// The colours in insertion order (their palette indexes).
    private(set) var colors: [UInt32] = []

    init() {
        slots = .allocate(capacity: Self.capacity); slots.initialize(repeating: 0)
        indexes = .allocate(capacity: Self.capacity); indexes.initialize(repeating: 0)
        colors.reserveCapacity(256)
    }

    deinit { slots.deallocate(); indexes.deallocate() }

    var count: Int { colors.count }

    func removeAll() {
        slots.update(repeating: 0)
        colors.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    private func slot(_ c: UInt32) -> Int {
        var i = Int(truncatingIfNeeded: (c &* 0x9E37_79B1) >> 22) & (Self.capacity - 1)
        while slots[i] != 0 && slots[i] != c { i = (i + 1) & (Self.capacity - 1) }
        return i
    }

    /// Adds an opaque colour; false (and nothing added) when 256 colours are already kept.
    @inline(__always)
    func insert(_ c: UInt32) -> Bool {
        let i = slot(c)
        if slots[i] == c { return true }
        guard colors.count < 256 else { return false }
        slots[i] = c; indexes[i] = UInt8(colors.count); colors.append(c)
        return true
    }

    /// Makes the table a palette's: every opaque colour at its palette index (the first if
    /// repeated); transparent entries (0) keep their place. `insert` is not used after this.
    func assign(_ palette: [UInt32]) {
        removeAll()
        for (i, c) in palette.enumerated() where c != 0 {
            let s = slot(c)
            if slots[s] == c { continue }
            slots[s] = c; indexes[s] = UInt8(i)
        }
        colors = palette
    }

    /// The palette index of an opaque colour, or nil.
    @inline(__always)
    func index(of c: UInt32) -> UInt8? {
        let i = slot(c)
        return slots[i] == c ? indexes[i] : nil
    }
}
