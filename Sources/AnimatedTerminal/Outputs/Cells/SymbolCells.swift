import AnimatedCore

/// Cells chosen by `SymbolEncoder`: per cell a coverage mask and two 24-bit colours
/// (0xRRGGBB, or `CellColor.terminalDefault` for the terminal's own background), before
/// palette quantisation. Row-major, `columns × rows`.
package struct SymbolCells: PreparedCells {
    /// What the masks mean.
    package let symbols: SymbolSet
    /// Width in cells.
    package let columns: Int
    /// Height in cells.
    package let rows: Int
    /// Per cell: the sub-pixels in the foreground colour.
    package let masks: [UInt8]
    /// Per cell: the colour of the masked sub-pixels.
    package let foregrounds: [UInt32]
    /// Per cell: the colour of the others.
    package let backgrounds: [UInt32]

    /// Number of cells.
    package var count: Int { columns * rows }
    /// Bytes held.
    package var byteCount: Int { count * 9 }
}

extension ScaledFrame {
    /// The cells `SymbolScaler` chose for this frame, if it did.
    package var symbolCells: SymbolCells? { cells as? SymbolCells }
}
