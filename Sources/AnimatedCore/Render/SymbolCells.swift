/// Cells chosen by `SymbolEncoder`: per cell a coverage mask and two 24-bit colours
/// (0xRRGGBB, or `CellColor.terminalDefault` for the terminal's own background), before
/// palette quantisation. Row-major, `columns × rows`.
public struct SymbolCells: Sendable {
    public let symbols: SymbolSet
    public let columns: Int
    public let rows: Int
    public let masks: [UInt8]
    public let foregrounds: [UInt32]
    public let backgrounds: [UInt32]

    public var count: Int { columns * rows }
    public var byteCount: Int { count * 9 }
}
