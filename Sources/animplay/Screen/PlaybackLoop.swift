import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// How playback ended.
enum PlaybackEnd: Equatable {
    case finished
    case quit
    case signal(Int32)
    /// The decoder failed on the producer thread before any frame could be shown.
    case failed(AnimatedError)
    /// n or p while several files play in turn.
    case nextFile, previousFile
}

/// The screen's event loop: draw what the player says is due, then sleep in `poll` on the
/// keyboard and the signal pipe until the next frame deadline. Single-threaded; signals and
/// resizes are handled here, between frames, never inside a handler.
final class PlaybackLoop {
    let player: Player
    let screen: NcursesScreen
    let signals: SignalPipe
    /// Where frames go (cells or pixels).
    private(set) var output: any FrameOutput
    /// The output to use instead if the terminal refuses this one (pixels → cells).
    private var fallback: (() -> any FrameOutput)?
    /// Lines to print once the terminal is restored.
    private(set) var warnings: [String] = []
    var hasFrame: Bool { output.hasFrame }
    private var showStatus: Bool
    /// --scale, if given (the status line says when it does not fit).
    private let requestedScale: Int?
    /// Facts for the status line that do not change while playing (e.g. an assumed background).
    var notes: [String] = []
    /// Where frames go for a given box (rows × columns of cells available for the image, cells
    /// of `cell` pixels).
    private let layoutFor: (_ rows: Int, _ columns: Int, _ cell: RenderSize) -> RenderLayout
    /// Where the image is (the last frame is printed at its column on exit).
    private(set) var layout: RenderLayout
    /// Set when `stopProcess` continues: the SIGCONT that follows needs no second repaint.
    private var resumedFromStop = false
    /// The stream still arriving (a download, a pipe): its progress joins the status line.
    var download: SpoolBuffer?
    private var lastStatusDraw: UInt64 = 0
    /// Where the bytes come from, for the status line in the download's place (a cached copy
    /// and what its revalidation found so far).
    var sourceNote: (() -> String)?
    /// Runs once, after the first frame is drawn (work that must not delay it).
    var afterFirstFrame: (() -> Void)?
    /// Several files in turn: "2/5 name" for the status line (nil: one file; n/p do nothing).
    var fileLabel: String?

    /// `renderSize`: what the player was created with (re-fitted if ncurses sees another size).
    init(player: Player, renderSize: RenderSize, screen: NcursesScreen, signals: SignalPipe,
         output: any FrameOutput, fallback: (() -> any FrameOutput)? = nil, showStatus: Bool, requestedScale: Int? = nil,
         layoutFor: @escaping (_ rows: Int, _ columns: Int, _ cell: RenderSize) -> RenderLayout) {
        self.player = player; self.screen = screen; self.signals = signals
        self.output = output; self.fallback = fallback; self.showStatus = showStatus; self.layoutFor = layoutFor
        self.requestedScale = requestedScale
        layout = layoutFor(screen.rows - (showStatus ? 1 : 0), screen.columns, output.cell)
        if layout.size != renderSize { player.resize(to: layout.size) }
        // kitty holds the frames it was sent: the player need not keep them too.
        (output as? KittyOutput)?.terminalFrames = player.terminalFrames()
    }

    /// Before the last frame is printed (`printLast`, `lastFrameCanvas`): the output gets the
    /// frame on screen with its data if it only had a placeholder (kitty held the data).
    func prepareFrameOnScreen() { Self.prepareFrameOnScreen(output, player: player) }

    /// The same for any output and player (inline playback too).
    static func prepareFrameOnScreen(_ output: any FrameOutput, player: Player) {
        guard let kitty = output as? KittyOutput, kitty.needsFrameOnScreen,
              let frame = player.preparedFrameOnScreen(timeoutNanoseconds: lastFrameTimeout) else { return }
        kitty.show(frame)
    }

    /// How long the end of playback waits for the frame on screen to be prepared again (a
    /// replay from a keyframe: well under a second for a large video).
    static let lastFrameTimeout: UInt64 = 5_000_000_000

    func run() -> PlaybackEnd {
        while true {
            // 1. Signals: quit, resize, resume.
            let received = signals.drain()
            for s in received {
                switch s {
                case SIGWINCH:
                    let cellChanged = output.syncCellSize()
                    if screen.syncSize() || cellChanged { relayout(repaint: true) }
                case SIGCONT:
                    // After our own stop the repaint is done; after someone else's SIGSTOP
                    // the screen may have been overwritten meanwhile.
                    if resumedFromStop { resumedFromStop = false } else { output.invalidate(); redraw() }
                case SIGTSTP:
                    // A continue already queued behind it (kill -TSTP; kill -CONT): stay.
                    if !received.drop(while: { $0 != SIGTSTP }).contains(SIGCONT) { stopProcess() }
                default: return .signal(s)
                }
            }
            // 2. Whatever frame is due.
            let update = player.update()
            if let error = update.error { return .failed(error) }
            if let frame = update.frame {
                output.show(frame)
                redraw()
                if let failure = output.failure { fallBack(because: failure) }
                if let after = afterFirstFrame {
                    afterFirstFrame = nil
                    after()
                }
            }
            if !hasFrame, let stream = player.takeFrameStream() {
                // The first frame's payload, written while the producer makes it.
                output.writeAhead(stream, at: layout, status: showStatus ? statusLine() : nil)
            }
            if update.finished && !player.status.paused { return .finished }
            refreshDownloadStatus()
            // 3. Sleep until the deadline, a key or a signal.
            wait(until: update.nextDeadline)
            let keys = screen.readKeys()
            output.accept(replies: screen.takeGraphicsReplies())
            if let failure = output.failure { fallBack(because: failure) }
            for action in KeyMap.actions(for: keys) {
                if action == .quit { return .quit }
                if fileLabel != nil && action == .nextFile { return .nextFile }
                if fileLabel != nil && action == .previousFile { return .previousFile }
                apply(action)
            }
        }
    }

    /// Ctrl-Z: the clock is held, the terminal given back as it was, and the process stopped;
    /// `fg` (SIGCONT) continues here, from the same frame with the rest of its time.
    private func stopProcess() {
        player.suspend()
        screen.suspend()
        // SIGSTOP, not SIGTSTP: a default-action SIGTSTP is discarded in an orphaned process
        // group (a session leader started by a non-shell), SIGSTOP always stops.
        kill(getpid(), SIGSTOP)
        resumedFromStop = true
        screen.resume()
        _ = screen.syncSize()        // resized while stopped: SIGWINCH may come later or not at all
        relayout(repaint: true)
        player.resume()
    }

    private func apply(_ action: PlaybackAction) {
        switch action {
        case .togglePause: player.togglePause()
        case .step(let d): player.step(d)
        case .faster: player.setSpeed(player.status.speed * KeyMap.speedStep)
        case .slower: player.setSpeed(player.status.speed / KeyMap.speedStep)
        case .toggleReverse: player.toggleReverse()
        case .restart: player.restart()
        case .toggleStatus: showStatus.toggle(); relayout(repaint: false); return
        case .quit, .nextFile, .previousFile: return
        }
        redraw()
    }

    /// Re-fits after a size change or status toggle; the player renders the next frame at the
    /// new size. `repaint`: the terminal's contents are unknown (resize), so everything is
    /// redrawn even if the image stays where it was.
    private func relayout(repaint: Bool) {
        let box = layoutFor(screen.rows - (showStatus ? 1 : 0), screen.columns, output.cell)
        if repaint || box != layout { output.invalidate() }
        if box.size != layout.size { player.resize(to: box.size) }
        layout = box
        redraw()
    }

    /// The terminal refused the output (an error reply): delete what it holds, go on in
    /// cells from the same place (the player prepares frames for the new output), and say so
    /// once the terminal is restored.
    private func fallBack(because reason: String) {
        guard let make = fallback else { return }
        fallback = nil
        output.leave()
        warnings.append("\(output.failureSubject) (\(reason.prefix(80))); using cells")
        output = make()
        output.invalidate()
        layout = layoutFor(screen.rows - (showStatus ? 1 : 0), screen.columns, output.cell)
        player.resize(to: layout.size, scaler: output.preparer)
    }

    /// Presents the current frame and the status line.
    private func redraw() {
        guard hasFrame else { return }
        output.present(at: layout, status: showStatus ? statusLine() : nil)
    }

    private func wait(until deadline: UInt64?) {
        waitForInput(screen.inputFD, orSignal: signals.readFD, orArrival: player.arrivals, until: deadline)
    }

    /// While a stream arrives, the status line's download figures move even between frames.
    private func refreshDownloadStatus() {
        guard showStatus, let download, hasFrame else { return }
        let now = MonotonicClock.nanoseconds()
        guard now - lastStatusDraw >= 250_000_000 else { return }
        let p = download.progress
        if p.finished && p.finishedAt.map({ $0 < lastStatusDraw }) == true { return }
        redraw()
    }

    private func statusLine() -> String {
        lastStatusDraw = MonotonicClock.nanoseconds()
        // Notes can hold outside text (a file name, a server's answer): escaped like messages.
        return TerminalText.escaped(Self.statusLine(player.status, provisional: player.info.provisional,
                               download: download.map { Self.downloadText($0.progress, now: lastStatusDraw) } ?? sourceNote?(),
                               scale: requestedScale.map { (shown: layout.factor, asked: $0) },
                               notes: [output.statusNote].compactMap { $0 } + notes, file: fileLabel))
    }

    /// The status line: the state first (a narrow terminal cuts the end, never "paused"), then
    /// the place (and a download's progress), then the figures. `scale`: the user's --scale and
    /// the whole factor shown, mentioned when they differ. `notes`: facts that do not change
    /// while playing, last. `file`: which of several files plays ("2/5 name", already escaped).
    static func statusLine(_ s: PlayerStatus, provisional: Bool = false, download: String? = nil,
                           scale: (shown: Int?, asked: Int)? = nil, notes: [String] = [], file: String? = nil) -> String {
        var parts = [
            s.paused ? "paused" : s.finished ? "ended" : "playing",
            "frame \(s.frameIndex + 1)/\(s.frameCount)\(provisional ? "+" : "")",
            s.plays == 0 ? "play \(s.play)" : "play \(s.play)/\(s.plays)",
        ]
        if s.mode != .normal { parts[0] += " " + s.mode.rawValue }
        if let scale, scale.shown != scale.asked {
            parts.append(scale.shown.map { "scale \($0)x (\(scale.asked)x does not fit)" }
                         ?? "reduced (\(scale.asked)x does not fit)")
        }
        parts += [
            "speed \(Self.fixed(s.speed, 2))x",
            "\(Self.fixed(s.effectiveFPS, 1)) fps",
            "drops \(s.droppedFrames)",
            "buffer \(Self.fixed(Double(s.bufferBytes) / 1_048_576, 1)) MB",
        ]
        parts += notes
        // Right after the frame counter: on a narrow terminal the line is cut at the right.
        if let download { parts.insert(download, at: 2) }
        // Which file, before the frame: the place is what a playlist's viewer looks for first.
        if let file { parts.insert(file, at: 1) }
        return " " + parts.joined(separator: "  ")
    }

    /// "↓ 1.2/2.3 MB 52% 250 KB/s" while arriving, "↓ 2.3 MB done" after.
    static func downloadText(_ p: SpoolBuffer.Progress, now: UInt64) -> String {
        let mb = { (n: Int) in fixed(Double(n) / 1_048_576, 1) }
        if p.finished { return "↓ \(mb(p.count)) MB \(p.failure == nil ? "done" : "ended early")" }
        var t = "↓ \(mb(p.count))"
        if let total = p.expected, total > 0 {
            t += "/\(mb(total)) MB \(min(100, p.count * 100 / total))%"
        } else {
            t += " MB"
        }
        let seconds = Double(now - p.startedAt) / 1e9
        if seconds > 0.2 { t += " \(Int(Double(p.count) / 1024 / seconds)) KB/s" }
        return t
    }

    /// `v` with `digits` decimals, without Foundation.
    static func fixed(_ v: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let n = Int((v * scale).rounded())
        let whole = n / Int(scale), frac = abs(n % Int(scale))
        guard digits > 0 else { return String(whole) }
        var f = String(frac)
        while f.count < digits { f = "0" + f }
        return "\(whole).\(f)"
    }
}
