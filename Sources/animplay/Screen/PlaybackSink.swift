import AnimatedCore
import AnimatedTerminal

/// The terminal during playback as the outputs' sink: writes to the screen's file descriptor
/// (around its `sc`/`rc`), and inside tmux answers the kitty output's two questions: `settle`
/// (a DA1 round trip on the tty, see `NcursesScreen.roundTrip`) and `tmuxPane` (asked of the
/// tmux server).
final class PlaybackSink: TerminalSink {
    private let base: FileDescriptorSink
    private let screen: NcursesScreen

    init(screen: NcursesScreen) {
        self.screen = screen
        base = TerminalOutput.sink(fd: screen.outputFD, saveCursor: screen.saveCursor, restoreCursor: screen.restoreCursor)
    }

    func write(_ bytes: [UInt8]) { base.write(bytes) }
    var saveCursor: [UInt8] { base.saveCursor }
    var restoreCursor: [UInt8] { base.restoreCursor }
    var isWritable: Bool { base.isWritable }
    var windowCellSize: RenderSize? { base.windowCellSize }
    func settle() { _ = screen.roundTrip() }
    func tmuxPane() -> TmuxPane? { TmuxClient.pane() }
}
