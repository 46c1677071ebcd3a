import AnimatedCore

/// Cells chosen by `SymbolEncoder`: per cell a coverage mask and two 24-bit colours
/// (0xRRGGBB, or `CellColor.terminalDefault` for the terminal's own background), before
/// palette quantisation. Row-major, `columns × rows`.
public struct SymbolCells: PreparedCells {
    /// What the masks mean.
    public let symbols: SymbolSet
    /// Width in cells.
    public let columns: Int
    /// Height in cells.
    public let rows: Int
    /// Per cell: the sub-pixels in the foreground colour.
    public let masks: [UInt8]
    /// Per cell: the colour of the masked sub-pixels.
    public let foregrounds: [UInt32]
    /// Per cell: the colour of the others.
    public let backgrounds: [UInt32]

    /// Number of cells.
    public var count: Int { columns * rows }
    /// Bytes held.
    public var byteCount: Int { count * 9 }
}

extension ScaledFrame {
    /// The cells `SymbolScaler` chose for this frame, if it did.
    public var symbolCells: SymbolCells? { cells as? SymbolCells }
}
