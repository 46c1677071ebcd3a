/// What a terminal may report about its pixels (`CSI 16 t`, TIOCGWINSZ) before the pixel
/// outputs size their canvases by it: a cell of 4 to 512 pixels a side, a window of at most
/// 16384 pixels a side. Beyond that the report is wrong or hostile (`CSI 6;10000;10000t` would
/// make a screen-sized frame of 211 GB), and the caller falls back with one warning.
package enum CellPixelBounds {
    package static let cell = 4...512
    package static let maxSide = 16384

    /// Why a cell of `width`×`height` pixels on a `columns`×`rows` window cannot be believed;
    /// nil when it can.
    package static func problem(width: Int, height: Int, columns: Int, rows: Int) -> String? {
        guard cell.contains(width), cell.contains(height) else {
            return "a cell of \(width)x\(height) pixels (outside \(cell.lowerBound)-\(cell.upperBound))"
        }
        let w = width.multipliedReportingOverflow(by: max(1, columns)), h = height.multipliedReportingOverflow(by: max(1, rows))
        guard !w.overflow, !h.overflow, w.partialValue <= maxSide, h.partialValue <= maxSide else {
            return "a window of \(columns)x\(rows) cells of \(width)x\(height) pixels (more than \(maxSide) pixels a side)"
        }
        return nil
    }

    /// Whether a screen-sized RGBA frame (`columns`×`rows` cells of `width`×`height`) fits
    /// a quarter of `memoryBytes` (the frame is prepared, buffered and encoded in copies).
    package static func fits(width: Int, height: Int, columns: Int, rows: Int, memoryBytes: Int) -> Bool {
        let px = (width * max(1, columns)).multipliedReportingOverflow(by: height * max(1, rows))
        return !px.overflow && px.partialValue <= memoryBytes / 16
    }
}
