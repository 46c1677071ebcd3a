import AnimatedCore
import AnimatedTerminal

/// A terminal that records what the outputs write: the bytes since the last `take()`, and
/// writability and a cell size the test sets (a busy terminal, a resized window).
package final class RecordingSink: TerminalSink {
    package private(set) var bytes: [UInt8] = []
    package var isWritable = true
    package var windowCellSize: RenderSize?
    package let saveCursor = Array("\u{1B}7".utf8)
    package let restoreCursor = Array("\u{1B}8".utf8)

    package init(cell: RenderSize? = nil) { windowCellSize = cell }

    package func write(_ bytes: [UInt8]) { self.bytes += bytes }

    /// The bytes written since the last call.
    package func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
