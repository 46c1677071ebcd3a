import AnimatedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an output's bytes go: the terminal in the CLI, a recording in tests. Outputs write
/// through this and never to a file descriptor, so they can be checked without a terminal.
public protocol TerminalSink: AnyObject {
    /// Writes all of `bytes` (or gives up silently when the terminal is gone: no one is left to tell).
    func write(_ bytes: [UInt8])
    /// Saves the cursor and attributes (DECSC, or terminfo's `sc`); empty when the terminal has none.
    var saveCursor: [UInt8] { get }
    /// Restores what `saveCursor` saved.
    var restoreCursor: [UInt8] { get }
    /// True when the terminal takes more output now (a frame due is skipped, never queued, when not).
    var isWritable: Bool { get }
    /// The cell size in pixels the window says now (its size in pixels over its size in
    /// cells); nil when the kernel does not know it.
    var windowCellSize: RenderSize? { get }
    /// Waits (briefly) until whatever reads this terminal has taken in everything written so
    /// far. Inside tmux: tmux 3.3 drops passthrough while a pane waits to be redrawn (after the
    /// alternate screen is entered or left, after a resize); the CLI asks DA1 and waits for the
    /// answer. Default: nothing.
    func settle()
    /// Inside tmux: where this pane sits on the outer terminal's screen (kitty places a
    /// passed-through image at the outer cursor). Default: nil (unknown, or not inside tmux).
    func tmuxPane() -> TmuxPane?
    /// Moves the cursor to cell (`row`, `column`) of the area the output draws in (0-based). The
    /// alternate screen: that cell of the screen (CUP). `InlineRegion`: rows counted from the
    /// top of the rows reserved below the prompt, reached by relative moves from the cursor
    /// below them (an output saves the cursor before and restores it after).
    func cursorTo(row: Int, column: Int) -> [UInt8]
}

extension TerminalSink {
    public func settle() {}
    public func tmuxPane() -> TmuxPane? { nil }
    public func cursorTo(row: Int, column: Int) -> [UInt8] { Array("\u{1B}[\(row + 1);\(column + 1)H".utf8) }
}

/// A terminal on a file descriptor, without curses: writes with `writeAll`, asks `poll` whether
/// it is writable. `windowCellSize` is what `cellSize` returns (the CLI asks the kernel
/// through its ncurses shim).
public final class FileDescriptorSink: TerminalSink {
    /// The descriptor written to (not closed by the sink).
    public let fd: Int32
    public let saveCursor: [UInt8]
    public let restoreCursor: [UInt8]
    private let cellSize: () -> RenderSize?

    /// A sink on `fd`; `saveCursor`/`restoreCursor` are the terminal's sequences (DECSC/DECRC by default), `cellSize` its pixels per cell if known.
    public init(fd: Int32, saveCursor: [UInt8] = Array("\u{1B}7".utf8), restoreCursor: [UInt8] = Array("\u{1B}8".utf8),
                cellSize: @escaping () -> RenderSize? = { nil }) {
        self.fd = fd; self.saveCursor = saveCursor; self.restoreCursor = restoreCursor; self.cellSize = cellSize
    }

    public func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    public var isWritable: Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        return poll(&pfd, 1, 0) > 0 && pfd.revents & Int16(POLLOUT) != 0
    }

    public var windowCellSize: RenderSize? { cellSize() }
}

/// What the pixel outputs need to know about the terminal (as chafa's `ChafaTermInfo`): its
/// cell size in pixels, whether images must pass through tmux, how many sixel colour
/// registers it has. Made once, by `OutputPlan.decide`.
public struct TerminalInfo: Sendable, Equatable {
    /// Pixels per cell when playback starts.
    public var cell: RenderSize
    /// What the terminal answered to `CSI 16 t`: the cell size when the kernel does not know it.
    public var reportedCell: RenderSize?
    /// Inside tmux with passthrough: each image is wrapped for tmux to hand on.
    public var tmuxPassthrough: Bool
    /// Sixel colour registers (XTSMGRAPHICS's answer, 2–256).
    public var colorRegisters: Int
    /// The largest sixel image the terminal draws (XTSMGRAPHICS's answer; nil: no limit known).
    /// xterm drops a larger image whole: sixel pictures are laid out within it.
    public var maxSixelSize: RenderSize?

    /// Facts as the properties above say.
    public init(cell: RenderSize, reportedCell: RenderSize? = nil, tmuxPassthrough: Bool = false,
                colorRegisters: Int = TerminalInfo.defaultRegisters, maxSixelSize: RenderSize? = nil) {
        self.cell = cell; self.reportedCell = reportedCell; self.tmuxPassthrough = tmuxPassthrough
        self.colorRegisters = colorRegisters; self.maxSixelSize = maxSixelSize
    }

    /// Sixel colour registers assumed when the terminal does not answer XTSMGRAPHICS (xterm,
    /// foot, WezTerm and mlterm all have at least 256).
    public static let defaultRegisters = 256

    /// The cell size now: the window's, else the reported one, each only when a screen can
    /// have it (`CellPixelBounds`; nil keeps the cell the output has).
    package func currentCell(window: RenderSize?) -> RenderSize? {
        [window, reportedCell].compactMap { $0 }.first {
            CellPixelBounds.cell.contains($0.width) && CellPixelBounds.cell.contains($0.height)
        }
    }

    /// `bytes` as the terminal must receive them (wrapped for tmux passthrough when inside tmux).
    package func wrap(_ bytes: [UInt8]) -> [UInt8] {
        tmuxPassthrough ? TerminalQueries.tmuxPassthrough(bytes) : bytes
    }
}
