import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

struct Play: ParsableCommand {
    // Help text in ASCII: the man page generator (generate-manual) drops other characters.
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play an animation in the terminal (the default subcommand).",
        discussion: """
        Each character cell shows two pixels (an upper half block: upper pixel in the foreground \
        colour, lower pixel in the background colour), or with --symbols 2x2, 2x3 or 2x4 pixels \
        in two colours chosen per cell. The image is fitted into the terminal (or --size), \
        centred; pixel art is enlarged by whole factors only; reductions average the covered \
        area in linear light. --fill enlarges to the largest size that fits (smoothly, in \
        linear light; kitty and iTerm2 enlarge the frames themselves).

        KEYS
          space         pause / resume
          Left Right    step one frame (paused)
          + -           faster / slower
          r             reverse
          0             restart
          i             status line
          n p           next / previous file (in turn), page (--grid)
          q Esc Ctrl-C  quit
          Ctrl-Z        suspend (fg resumes on the same frame)
          The keypad's + - 0 work too; other keys and Alt+key are ignored.

        On exit the terminal is restored and the last frame is printed into the normal screen \
        (like `cat` of an image) unless --clear; warnings about a damaged file follow on \
        stderr. Still images are printed once. stdout must be \
        a terminal; to extract frames use `animplay dump`.
        """
    )

    @OptionGroup var source: SourceOptions
    @OptionGroup var decodeOptions: DecodeOptionGroup
    @OptionGroup var graphicsOptions: GraphicsOptions
    @OptionGroup var palette: PaletteOptions
    @OptionGroup var symbolOptions: SymbolOptions

    @Option(name: .customLong("loop"), parsing: .unconditional, help: ArgumentHelp("Number of plays; 0 = forever (default: the file's own count).", valueName: "N"))
    var plays: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Playback rate, 0.1 to 10.", valueName: "X"))
    var speed: Double = 1

    @Option(help: "Order: normal, reverse or bounce.")
    var mode: PlaybackMode = .normal

    @Option(parsing: .unconditional, help: ArgumentHelp("Display rate cap; shorter frames are merged.", valueName: "FPS"))
    var maxFps: Double = 60

    @Option(parsing: .unconditional, help: ArgumentHelp("Frame buffer budget in MiB (default: memory-aware).", valueName: "MB"))
    var bufferMb: Int?

    @Option(help: ArgumentHelp("Box to fit into, in character cells (default: the terminal).", valueName: "WxH"))
    var size: String?

    @Flag(help: "--fit (default): the picture's own size, enlarged by whole factors only (pixel art stays sharp), reduced to fit; --fill: the largest size that fits the box, aspect kept, enlarged smoothly; --stretch: the whole box.")
    var fitMode: FitMode = .fit

    @Option(parsing: .unconditional, help: ArgumentHelp("Enlarge by this whole factor (default: the largest that fits; when N does not fit, the largest whole factor that does, as the status line says).", valueName: "N"))
    var scale: Int?

    @Option(help: ArgumentHelp("Behind transparent pixels: auto (the terminal's background colour, asked with OSC 11, blended in sRGB as browsers do; a dark default when it does not answer), none (the terminal's own background; pixels less than half opaque are left out), a colour (RRGGBB, #RRGGBB, black, white, grey) or checker.", valueName: "auto|none|COLOR|checker"))
    var bg: String = "auto"

    @Option(help: "Colours: auto (24-bit when the terminfo entry has RGB or COLORTERM is truecolor/24bit, else 256 or 16), truecolor, 256 or 16.")
    var colors: ColorRequest = .auto

    @Flag(help: "Leave nothing on screen at exit (default: the last frame stays, like cat).")
    var clear = false

    @Flag(help: "Start with the status line shown (toggle with i).")
    var status = false

    @Flag(help: "Several files: the frames of one animation (the default when they are all still images of one size).")
    var sequence = false

    @Flag(name: .customLong("in-turn"), help: "Several files: play them one after another, n / p for the next / previous (the default unless they are all still images of one size).")
    var inTurn = false

    @Flag(help: "Play in the normal screen at the cursor (no alternate screen), in cells or pixels as without it (inside tmux in cells); the last frame stays there, and in the scrollback (--clear erases it).")
    var inline = false

    @Option(help: ArgumentHelp("Several animations at once in a grid of C columns by R rows, each on its own clock. With more files than tiles, a tile whose file has played takes the next file (a file that loops forever plays once unless --loop is given, a still is held 2 s); n / p show the next / previous CxR files (with --loop 0 the only way on); the grid ends when every file has played.", valueName: "CxR"))
    var grid: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Print frame N (0 = the first) as a still and exit, for previews (fzf, file managers): no alternate screen, no keys. When stdout is not a terminal (a previewer's pipe), the frame is written in cells with colour escapes, with no query to any terminal, sized by --size, else FZF_PREVIEW_COLUMNS x FZF_PREVIEW_LINES, else COLUMNS x LINES, else 80x24.", valueName: "N"))
    var frame: Int?

    func validate() throws {
        guard (0.1...10).contains(speed) else { throw ValidationError("--speed must be between 0.1 and 10, got \(speed)") }
        // 0.001 to 1000, as --fps: `inf` (and huge rates) made the display tick 0, a busy loop
        // writing frames as fast as the terminal took them; 1e-10 made it 1e19 ns, a trap.
        guard maxFps >= 0.001 && maxFps <= 1000 else { throw ValidationError("--max-fps must be 0.001 to 1000, got \(maxFps)") }
        if let plays, plays < 0 { throw ValidationError("--loop must be 0 (forever) or more") }
        if let scale, scale < 1 { throw ValidationError("--scale must be 1 or more") }
        if sequence && inTurn { throw ValidationError("give --sequence or --in-turn, not both") }
        if let grid, parseWxH(grid) == nil { throw ValidationError("--grid must be CxR with positive numbers of columns and rows (e.g. 2x2), got '\(grid)'") }
        if inline && (grid != nil || frame != nil || inTurn) { throw ValidationError("--inline plays one animation: it does not combine with --grid, --frame or --in-turn") }
        if grid != nil && (frame != nil || sequence) { throw ValidationError("--grid plays files side by side: it does not combine with --frame or --sequence") }
        if let frame, frame < 0 { throw ValidationError("--frame must be 0 (the first frame) or more, got \(frame)") }
        if let bufferMb { try checkMegabytes(bufferMb, "--buffer-mb") }
        if let size, parseWxH(size) == nil { throw ValidationError(Self.sizeProblem(size)) }
        guard BackgroundRequest(bg) != nil else { throw ValidationError("--bg must be auto, none, checker, RRGGBB, #RRGGBB, black, white or grey, got '\(bg)'") }
    }

    func run() throws {
        try reportingFailures { try playSource() }
    }

    private func playSource() throws(CLIFailure) {
        // A GIF file's frame 0 is decoded while the file is indexed, and then while the
        // terminal is probed and the output chosen (an animation played in the alternate
        // screen); both may have started before the arguments were parsed (EarlyStart).
        let earlyFile = frame == nil && !inline && grid == nil ? source.plainFile : nil
        var guess = EarlyStart.take(for: earlyFile)
        var early = guess?.frameZero
        if frame == nil && source.files.count == 1 && InputSource.readsStandardInput(source.files[0]) {
            let tty = open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard tty >= 0 else {
                throw CLIFailure(message: "the image comes from standard input and there is no terminal (/dev/tty) to read keys from; use `animplay info -` or `animplay dump - -o DIR` without a terminal", code: 1)
            }
            close(tty)
        }
        if let grid, let (columns, rows) = parseWxH(grid) {
            guard isatty(1) != 0 else {
                throw CLIFailure(message: "standard output is not a terminal; --grid plays in a terminal", code: 1)
            }
            // The first C×R files open now; the others when a tile is free (GridLoop).
            let names = Array(source.files.prefix(columns * rows))
            var decoders: [any AnimationDecoder] = []
            var typed: [UInt8] = []
            for name in names {
                let (opened, keys) = try openWatched(name, progressive: false)
                decoders.append(opened.decoder)
                typed += keys
            }
            try playGrid(decoders, names: names, columns: columns, rows: rows, typed: typed)
            return
        }
        // Several files in turn (not for a preview: that shows one frame of one thing).
        var playlist: Playlist?
        if source.files.count > 1 && frame == nil && !sequence
            && (inTurn || Playlist.reading(of: source.files, options: decodeOptions.decodeOptions) == .inTurn) {
            // Inline, several files are one animation (stills of one size, or --sequence).
            if inline {
                throw CLIFailure(message: "--inline plays one animation, and these files would play one after another "
                                 + "(give --sequence to take them as the frames of one)", code: 64)
            }
            playlist = Playlist(names: source.files)
        }
        if let playlist {
            guard isatty(1) != 0 else {
                throw CLIFailure(message: "standard output is not a terminal; to write frames to files use `animplay dump FILE -o DIR`", code: 1)
            }
            // The first file that opens starts; the others that fail are named after playing.
            var failures: [CLIFailure] = []
            for (i, name) in playlist.names.enumerated() {
                let opened: OpenedInput, typed: [UInt8]
                do throws(CLIFailure) { (opened, typed) = try openWatched(name, progressive: true) } catch {
                    if i == playlist.names.count - 1 && failures.count == i { throw error }
                    failures.append(error)
                    continue
                }
                let info = opened.decoder.info
                let decoder = info.frameCount == 1 && !info.provisional ? HeldStill(opened.decoder) : opened.decoder
                let revalidation = opened.revalidation
                try play(decoder, spool: opened.spool, sourceNote: opened.sourceNote,
                         afterFirstFrame: { revalidation?.proceed() }, playlist: playlist, startIndex: i,
                         openFailures: failures, typed: typed, download: opened.download)
                return
            }
            return
        }
        // A preview needs the whole file (its frame N), and plays nothing. A URL to play says
        // what it is waiting for and takes keys from the start (ConnectingLine).
        let line = frame == nil && source.files.count == 1 && HTTPDownload.isURL(source.files[0])
            ? ConnectingLine(url: source.files[0]) : nil
        if early == nil, let earlyFile { early = FirstFrameAhead.Early(path: earlyFile, options: decodeOptions.decodeOptions) }
        let opened: OpenedInput
        do throws(CLIFailure) {
            var watch: (@Sendable (SpoolBuffer) -> Void)?
            if let line { watch = { line.watch($0) } }
            if let ahead = guess?.decoder, let openedAhead = try source.openAhead(decodeOptions, ahead) {
                opened = openedAhead
            } else {
                opened = try source.open(decodeOptions, progressive: frame == nil, watch: watch)
            }
            guess = nil
        } catch {
            _ = line?.stop()
            throw error
        }
        let typed = line?.stop() ?? []
        let download = opened.download
        defer { OpenedInput.stop(download) }
        let (decoder, spool, revalidation) = (opened.decoder, opened.spool, opened.revalidation)
        // Never write escape sequences anywhere but a terminal, unless a preview asks for
        // them (--frame: a previewer shows what it reads from the pipe).
        guard isatty(1) != 0 || frame != nil else {
            throw CLIFailure(message: "standard output is not a terminal; to write frames to files use `animplay dump \(source.displayName) -o DIR` (previews: --frame N)", code: 1)
        }
        if let frame, frame >= decoder.info.frameCount {
            let n = decoder.info.frameCount
            throw CLIFailure(file: source.displayName, message: "--frame \(frame): the image has \(n) frame\(n == 1 ? "" : "s") (0 to \(n - 1))", code: 64)
        }
        if frame != nil || (decoder.info.frameCount == 1 && !decoder.info.provisional) {
            try printStill(decoder, index: frame ?? 0, endedEarly: InputSource.earlyEnd(spool))
            revalidation?.proceed()
        } else if inline {
            try playInline(decoder, typed: typed)
            revalidation?.proceed()
        } else {
            // Frame 0 is decoded while the terminal is probed and the output chosen (complete
            // data only: a growing source's first frame may not have arrived).
            let first: any AnimationDecoder = decoder.info.provisional ? decoder : FirstFrameAhead(decoder, early: early)
            try play(first, spool: spool, sourceNote: opened.sourceNote, afterFirstFrame: { revalidation?.proceed() },
                     typed: typed)
        }
        source.reportRevalidation(revalidation)
        if let p = spool?.progress, p.fatal, let why = p.failure {
            throw CLIFailure(file: source.displayName, error: AnimatedError.network(why))
        }
    }

    // MARK: - Animation

    private func play(_ decoder: sending any AnimationDecoder, spool: SpoolBuffer?, sourceNote: (() -> String)?,
                      afterFirstFrame: @escaping () -> Void, playlist: Playlist? = nil, startIndex: Int = 0,
                      openFailures: [CLIFailure] = [], typed: [UInt8] = [],
                      download firstDownload: HTTPDownload? = nil) throws(CLIFailure) {
        // A playlist's downloads: the one of the file playing, and those of files left with n/p
        // (cancelled at once so that `n` does not wait; their threads are waited for at the end).
        var download = firstDownload
        var leftDownloads: [HTTPDownload] = []
        defer {
            OpenedInput.stop(download)
            for d in leftDownloads { OpenedInput.stop(d) }
        }
        let signals = try SignalPipe()
        defer { signals.uninstall() }
        // One round of terminal queries before anything else owns the tty (graphics, colours);
        // the output is chosen before the player starts: the producer prepares frames for it.
        var terminal = try probePlaybackTerminal()
        defer { terminal.finish() }
        if let warning = terminal.symbolWarning { StandardError.line("animplay: warning: \(warning)") }
        let plan = terminal.plan, background = terminal.background, symbolOptions = terminal.symbolOptions
        let (preparer, makeOutput) = plan.build(background: background)
        // The player starts before curses so that the first frame is being prepared while the
        // terminal is set up; the kernel's window size is what ncurses will report.
        var rows: Int32 = 24, cols: Int32 = 80
        _ = animplay_window_size(1, &rows, &cols)
        let options = PlayerOptions(plays: plays, speed: speed, mode: mode, maxFPS: maxFps,
                                    bufferBytes: bufferMb.map { $0 << 20 })
        var playerSize = RenderSize(width: 1, height: 1)
        // After the terminal refused pixels: cells for the rest of the files.
        var fellBack = false
        // kitty and iTerm2 enlarge images themselves (frames go at the canvas's own size).
        func layoutFor(_ info: AnimationInfo) -> (Int, Int, RenderSize) -> RenderLayout {
            layoutFunction(canvasWidth: info.width, canvasHeight: info.height, spareRow: plan.needsSpareRow && !fellBack,
                           terminalScales: plan.terminalScales && !fellBack, maxPicture: fellBack ? nil : plan.maxPicture)
        }
        // In a playlist a file that would loop forever plays once (--loop sets every file's count).
        func makePlayer(_ decoder: sending any AnimationDecoder, _ name: String, _ preparer: any FrameScaler,
                        _ cell: RenderSize) throws(CLIFailure) -> Player {
            let info = decoder.info
            var o = options
            if playlist != nil && o.plays == nil && info.plays == 0 { o.plays = 1 }
            let first = layoutFor(info)(Int(rows) - (status ? 1 : 0), Int(cols), cell)
            playerSize = first.size
            do {
                return try Player(decoder: decoder, options: o, scaler: preparer, renderSize: first.size)
            } catch {
                throw CLIFailure(file: name, error: error)
            }
        }
        var player = try makePlayer(decoder, playlist?.names[startIndex] ?? source.displayName, preparer, plan.cell)
        defer { player.stop() }
        if player.info.provisional, let spool { spool.observe(player.sourceGrowthHandler) }
        let screen = try NcursesScreen()
        screen.pushBack(typed + terminal.probe.typed)
        var facts = screen.facts
        facts.answered(terminal.probe.report)
        let (colorMode, chosenPath) = ColorSelection.choose(colors, facts: facts)
        let path = symbolOptions.cellPath(chosenPath, canSaveCursor: facts.canSaveCursor)
        guard path != .unsupported else {
            screen.end()
            throw CLIFailure(message: "terminal type '\(Self.termName)' has no colours and cannot save the cursor position; set TERM to your terminal's type (e.g. xterm-256color)")
        }
        let view = PlaybackView(screen: screen, mode: colorMode, path: path,
                                plainStatus: getenv("NO_COLOR").map { $0.pointee != 0 } ?? false)
        let sink = PlaybackSink(screen: screen)
        let cellSettings = OutputPlan.CellSettings(mode: colorMode, dither: palette.dither,
                                                   palette16: terminal.probe.report.answeredPalette16)
        let cells = OutputPlan.cells(symbolOptions.symbols)
        let cellOutput = { cells.build(background: background).output(view, sink, cellSettings) }
        // One output per file (a kitty output holds that file's frames in the terminal); after
        // the terminal refused pixels, cells for the rest.
        var index = startIndex
        var warnings: [String] = []
        var failures = openFailures
        var problems: [(AnimationInfo, [Int: String], String)] = []
        var loop: PlaybackLoop
        var end: PlaybackEnd
        var spool = spool, sourceNote = sourceNote
        var afterFirstFrame: (() -> Void)? = afterFirstFrame
        var firstFile = true
        while true {
            let info = player.info
            let output = fellBack ? cellOutput() : makeOutput(view, sink, cellSettings)
            loop = PlaybackLoop(player: player, renderSize: playerSize, screen: screen, signals: signals,
                                output: output, fallback: plan.isPixels && !fellBack ? cellOutput : nil,
                                showStatus: status, requestedScale: fitMode == .fit ? scale : nil, layoutFor: layoutFor(info))
            loop.notes = [terminal.backgroundNote].compactMap { $0 }
            loop.afterFirstFrame = afterFirstFrame
            afterFirstFrame = nil
            loop.sourceNote = sourceNote
            loop.fileLabel = playlist?.label(index)
            if info.provisional { loop.download = spool }
            // A later file (p back to the first one too) starts on a cleared screen: the
            // previous file's picture may have been larger or elsewhere.
            if !firstFile { output.invalidate() }
            firstFile = false
            end = loop.run()
            if !clear && end != .signal(SIGHUP) && end != .nextFile && end != .previousFile { loop.prepareFrameOnScreen() }
            warnings += loop.warnings
            if loop.output !== output { fellBack = true }    // the terminal refused pixels: cells from now on
            problems.append((player.info, player.frameProblems, playlist?.names[index] ?? source.displayName))
            // The next file: n, p, or the end of this one's plays.
            guard let playlist else { break }
            let step: Int
            switch end {
            case .nextFile, .finished: step = 1
            case .previousFile: step = -1
            default: step = 0
            }
            if step == 0 { break }
            // The frames of this file are no longer needed (its last frame stays with the output),
            // nor the rest of its bytes.
            player.stop()
            if let d = download, !d.spool.progress.finished { d.cancel(); leftDownloads.append(d) }
            download = nil
            var started = false
            var candidate = index + step
            while !started {
                if candidate < 0 { candidate = index }          // p on the first file: it again
                guard candidate < playlist.names.count else { break }
                do {
                    try startItem(candidate)
                    started = true
                } catch {
                    failures.append(error)
                    if candidate == index { break }
                    candidate += step
                }
            }
            // After the last file, playing ends.
            guard started else { break }
            loop.output.leave()
            index = candidate
        }
        loop.output.leave()
        // Before the tty's own modes come back (echo): replies the key reader has not seen yet.
        TerminalProbe.absorbLate(terminal.probe.late, seenSentinels: screen.sentinelsSeen)
        terminal.probe.late = nil
        screen.end()
        for warning in warnings { StandardError.line("animplay: warning: \(warning)") }
        if !clear && loop.hasFrame && end != .signal(SIGHUP) {
            if let kitty = loop.output as? KittyOutput, kitty.insideTmux, let canvas = kitty.lastFrameCanvas() {
                // Inside tmux an image would stay on kitty's screen whatever tmux does with
                // the pane (scroll, clear): the last frame stays as text, which tmux moves.
                let layout = layoutFor(player.info)(screen.rows - 1, screen.columns, RenderLayout.halfBlockCell)
                let (cellPreparer, makeCells) = OutputPlan.cells(symbolOptions.symbols).build(background: background)
                let text = makeCells(nil, TerminalOutput.sink(fd: 1), cellSettings)
                text.show(cellPreparer.scale(canvas, index: 0, to: layout.size))
                text.printLast(indent: layout.column)
            } else {
                loop.output.printLast(indent: loop.layout.column)
            }
        }
        // After the terminal is restored (on the alternate screen they would vanish with it).
        if end != .signal(SIGHUP) {
            for (info, frameProblems, name) in problems {
                reportWarnings(info, problems: frameProblems, file: name, endedEarly: playlist == nil ? InputSource.earlyEnd(spool) : nil)
            }
        }
        // Files of the list that could not be played: one line each (the last one thrown, with
        // its exit status), after the others played.
        if let last = failures.last, end != .signal(SIGHUP) {
            for f in failures.dropLast() { StandardError.line(f.line) }
            if case .signal = end { StandardError.line(last.line) } else if case .failed = end {
                StandardError.line(last.line)
            } else { throw last }
        }
        if case .failed(let error) = end {
            throw CLIFailure(file: playlist?.names[index] ?? source.displayName, error: error)
        }
        if case .signal(let s) = end {
            throw CLIFailure(message: "interrupted by \(s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM" : s == SIGHUP ? "SIGHUP" : "signal \(s)")", code: 1)
        }

        /// File `i` of the playlist, opened and playing (a still is held on screen for a while).
        func startItem(_ i: Int) throws(CLIFailure) {
            // A URL says it is connecting on the bottom row (where the status line goes).
            let place = ConnectingLine.Place.screen(row: screen.rows - 1, columns: screen.columns,
                                                    leave: screen.leaveBytes, shellModes: screen.shellModes)
            let (opened, typed) = try openWatched(playlist!.names[i], progressive: true, place: place)
            screen.pushBack(typed)
            download = opened.download
            spool = opened.spool
            sourceNote = opened.sourceNote
            let revalidation = opened.revalidation
            afterFirstFrame = { revalidation?.proceed() }
            let info = opened.decoder.info
            player = try makePlayer(info.frameCount == 1 && !info.provisional ? HeldStill(opened.decoder) : opened.decoder,
                                    playlist!.names[i], loop.output.preparer, loop.output.cell)
            if player.info.provisional, let spool { spool.observe(player.sourceGrowthHandler) }
        }
    }

    /// Opens file `name` of a playlist or grid; a URL shows the connecting line at `place` while
    /// it loads (keys typed meanwhile are returned for the player).
    private func openWatched(_ name: String, progressive: Bool,
                             place: ConnectingLine.Place = .cursor) throws(CLIFailure) -> (OpenedInput, [UInt8]) {
        let line = HTTPDownload.isURL(name) ? ConnectingLine(url: name, place: place) : nil
        var watch: (@Sendable (SpoolBuffer) -> Void)?
        if let line { watch = { line.watch($0) } }
        do throws(CLIFailure) {
            let opened = try source.openOne(name, decodeOptions, progressive: progressive, watch: watch)
            return (opened, line?.stop() ?? [])
        } catch {
            _ = line?.stop()
            throw error
        }
    }

    /// --inline: the animation at the cursor in the normal screen (InlinePlayback), in cells or
    /// pixels as the plan says.
    private func playInline(_ decoder: sending any AnimationDecoder, typed: [UInt8]) throws(CLIFailure) {
        let signals = try SignalPipe()
        defer { signals.uninstall() }
        let request = BackgroundRequest(bg)!
        let wantsPixels = !graphicsOptions.wantsCells
        var probe = request == .auto || wantsPixels ? TerminalProbe.run() : nil
        defer { TerminalProbe.absorbLate(probe?.late) }
        let report = probe?.report ?? TerminalReport()
        let background = request.resolve(report).mode
        var plan = try wantsPixels
            ? graphicsOptions.plan(report, symbols: symbolOptions.symbols, memoryBytes: decodeOptions.memoryBytes)
            : .cells(symbolOptions.symbols)
        // Inside tmux an image passed through lands on the outer terminal, where tmux neither
        // scrolls nor clears it with the pane's text (the alternate screen prints its last
        // frame as cells for the same reason): inline plays in cells there.
        if plan.terminal?.tmuxPassthrough == true { plan = .cells(symbolOptions.symbols) }
        let loaded = TerminfoEntry.start { animplay_setupterm($0, 1) != 0 ? () : nil }
        if case .failure(let failed) = loaded { throw CLIFailure(message: TerminfoEntry.refusal(failed.type)) }
        var facts = TerminalColorFacts(
            colors: Int(animplay_tigetnum("colors")), pairs: Int(animplay_tigetnum("pairs")), hasRGB: animplay_has_rgb() != 0,
            colortermTruecolor: TerminalColorFacts.colortermSaysTruecolor(getenv("COLORTERM").map { String(cString: $0) }),
            canSaveCursor: true)
        facts.answered(report)
        let (colorMode, _) = ColorSelection.choose(colors, facts: facts)
        let info = decoder.info
        let layoutFor = layoutFunction(canvasWidth: info.width, canvasHeight: info.height,
                                       terminalScales: plan.terminalScales, maxPicture: plan.maxPicture)
        let cellSettings = OutputPlan.CellSettings(mode: colorMode, dither: palette.dither, palette16: report.answeredPalette16)
        let symbols = symbolOptions.symbols
        let cells = { () -> (InlinePlayback.Drawing, any FrameScaler) in
            (.cells(CellRenderer(mode: colorMode, background: background, dither: cellSettings.dither,
                                 palette16: cellSettings.palette16), colorMode),
             OutputPlan.cellPreparer(symbols, background: background))
        }
        let region = InlineRegion(base: TerminalOutput.sink(fd: 1))
        let drawing: InlinePlayback.Drawing, preparer: any FrameScaler, cell: RenderSize
        if plan.isPixels {
            let built = plan.build(background: background)
            let output = built.output(nil, region, cellSettings)
            (drawing, preparer, cell) = (.output(output), built.preparer, output.cell)
        } else {
            (drawing, preparer) = cells()
            cell = RenderLayout.halfBlockCell
        }
        let spareRows = plan.needsSpareRow ? 1 : 0
        var rows: Int32 = 24, cols: Int32 = 80
        _ = animplay_window_size(1, &rows, &cols)
        let player: Player
        do {
            player = try Player(decoder: decoder, options: PlayerOptions(plays: plays, speed: speed, mode: mode, maxFPS: maxFps,
                                                                         bufferBytes: bufferMb.map { $0 << 20 }),
                                scaler: preparer, renderSize: layoutFor(Int(rows) - 1 - spareRows, Int(cols), cell).size)
        } catch {
            throw CLIFailure(file: source.displayName, error: error)
        }
        defer { player.stop() }
        let inline = InlinePlayback(player: player, signals: signals, region: region, drawing: drawing,
                                    spareRows: spareRows, layoutFor: layoutFor, fallback: plan.isPixels ? cells : nil)
        let end = inline.run(typed: typed + (probe?.typed ?? []))
        if end != .signal(SIGHUP) { inline.finish(clear: clear) }
        TerminalProbe.absorbLate(probe?.late, seenSentinels: inline.sentinelsSeen)
        probe?.late = nil
        if let reason = inline.fallbackReason { StandardError.line("animplay: warning: \(reason)") }
        if end != .signal(SIGHUP) { reportWarnings(info, problems: player.frameProblems, file: source.displayName) }
        if case .failed(let error) = end { throw CLIFailure(file: source.displayName, error: error) }
        if case .signal(let s) = end {
            throw CLIFailure(message: "interrupted by \(s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM" : s == SIGHUP ? "SIGHUP" : "signal \(s)")", code: 1)
        }
    }

    /// --grid: the files side by side, each on its own clock (GridLoop), in one output.
    private func playGrid(_ decoders: sending [any AnimationDecoder], names: [String], columns: Int, rows: Int,
                          typed: [UInt8] = []) throws(CLIFailure) {
        let signals = try SignalPipe()
        defer { signals.uninstall() }
        var terminal = try probePlaybackTerminal()
        defer { terminal.finish() }
        if let warning = terminal.symbolWarning { StandardError.line("animplay: warning: \(warning)") }
        let plan = terminal.plan, background = terminal.background, symbolOptions = terminal.symbolOptions
        // Every tile needs a cell at least: a grid wider or taller than the terminal would play
        // its last tiles off the screen (they were clipped, their files decoded for nothing).
        let report = terminal.probe.report
        let usable = GridLoop.pictureRows(report.windowRows, showStatus: status, spareRow: plan.needsSpareRow)
        if report.windowColumns > 0 && report.windowRows > 0 && (columns > report.windowColumns || rows > usable) {
            throw CLIFailure(message: "--grid \(columns)x\(rows) does not fit this \(report.windowColumns)x\(report.windowRows) terminal: every tile needs a cell at least (at most \(report.windowColumns)x\(max(1, usable)) here)", code: 64)
        }
        // Tiles are prepared as plain RGBA; the output's own preparer encodes the whole picture.
        var players: [(Player, String)] = []
        defer { for (p, _) in players { p.stop() } }
        let options = PlayerOptions(plays: plays, speed: speed, mode: mode, maxFPS: maxFps,
                                    bufferBytes: bufferMb.map { ($0 << 20) / max(1, decoders.count) } ?? (8 << 20))   // per tile
        // More files than tiles: tiles take the next file when theirs has played, so a file that
        // would loop forever plays once (unless --loop says otherwise) and a still is held.
        let queued = source.files.count > columns * rows
        let allNames = source.files
        func makePlayer(_ decoder: sending any AnimationDecoder, _ name: String) throws(CLIFailure) -> Player {
            let info = decoder.info
            var o = options
            if queued && o.plays == nil && info.plays == 0 { o.plays = 1 }
            do {
                return try Player(decoder: queued && info.frameCount == 1 && !info.provisional ? HeldStill(decoder) : decoder,
                                  options: o, scaler: AreaAverageScaler(),
                                  renderSize: RenderSize(width: info.width, height: info.height))
            } catch {
                throw CLIFailure(file: name, error: error)
            }
        }
        for (decoder, name) in zip(decoders, names) {
            // Each decoder goes to its own player and is never touched here again (the array
            // is not read after this loop): the compiler cannot see that per element.
            nonisolated(unsafe) let only = decoder
            players.append((try makePlayer(only, name), name))
        }
        let screen = try NcursesScreen()
        screen.pushBack(typed + terminal.probe.typed)
        let (colorMode, chosenPath) = ColorSelection.choose(colors, facts: screen.facts)
        let path = symbolOptions.cellPath(chosenPath, canSaveCursor: screen.facts.canSaveCursor)
        guard path != .unsupported else {
            screen.end()
            throw CLIFailure(message: "terminal type '\(Self.termName)' has no colours and cannot save the cursor position; set TERM to your terminal's type (e.g. xterm-256color)")
        }
        let view = PlaybackView(screen: screen, mode: colorMode, path: path,
                                plainStatus: getenv("NO_COLOR").map { $0.pointee != 0 } ?? false)
        let sink = TerminalOutput.sink(fd: screen.outputFD, saveCursor: screen.saveCursor,
                                       restoreCursor: screen.restoreCursor)
        let output = plan.build(background: background).output(
            view, sink, OutputPlan.CellSettings(mode: colorMode, dither: palette.dither, palette16: terminal.probe.report.answeredPalette16))
        // A later file, when a tile is free: a URL says it is connecting on the bottom row.
        var failures: [CLIFailure] = []
        let open = { (i: Int) -> (Player, String)? in
            let name = allNames[i]
            let place = ConnectingLine.Place.screen(row: screen.rows - 1, columns: screen.columns,
                                                    leave: screen.leaveBytes, shellModes: screen.shellModes)
            do throws(CLIFailure) {
                let (opened, typed) = try openWatched(name, progressive: false, place: place)
                screen.pushBack(typed)
                return (try makePlayer(opened.decoder, name), name)
            } catch {
                failures.append(error)
                return nil
            }
        }
        let loop = GridLoop(players: players, fileCount: allNames.count, open: open, columns: columns, rows: rows,
                            screen: screen, signals: signals, output: output,
                            showStatus: status, spareRow: plan.needsSpareRow, maxPicture: plan.maxPicture, maxFPS: maxFps)
        let end = loop.run()
        let indent = loop.pictureColumn
        // The players now in the tiles replace the first ones (stopped by the loop when it
        // replaced them); all of them are reported.
        let reported = loop.retired + loop.players
        players = loop.players
        output.leave()
        TerminalProbe.absorbLate(terminal.probe.late, seenSentinels: screen.sentinelsSeen)
        terminal.probe.late = nil
        screen.end()
        if !clear && loop.hasFrame && end != .signal(SIGHUP) { output.printLast(indent: indent) }
        if end != .signal(SIGHUP) {
            for (player, name) in reported { reportWarnings(player.info, problems: player.frameProblems, file: name) }
        }
        // Files that could not be opened when their turn came: one line each, the last one
        // thrown (its exit status) unless playing failed or was interrupted.
        if let last = failures.last, end != .signal(SIGHUP) {
            for f in failures.dropLast() { StandardError.line(f.line) }
            if case .signal = end { StandardError.line(last.line) } else if !loop.errors.isEmpty {
                StandardError.line(last.line)
            } else { throw last }
        }
        if let (name, error) = loop.errors.first { throw CLIFailure(file: name, error: error) }
        if case .signal(let s) = end {
            throw CLIFailure(message: "interrupted by \(s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM" : s == SIGHUP ? "SIGHUP" : "signal \(s)")", code: 1)
        }
    }

    /// Layout in a box of `rows` × `columns` cells of screen: --size (clamped to the screen)
    /// centred in it, the image fitted and centred in that. `spareRow`: the image keeps off the
    /// screen's last row (inline images leave the cursor below themselves: on the last row that
    /// would scroll); a box that already ends above it (status line shown) needs no spare row.
    /// `terminalScales`: the pixel output can have the terminal enlarge frames (not cells: a
    /// fallback to cells passes half-block cells, which never scale). `maxPicture`: the largest
    /// picture the pixel output shows (`OutputPlan.maxPicture`; not for cells either).
    private func layoutFunction(canvasWidth: Int, canvasHeight: Int, spareRow: Bool = false,
                                terminalScales: Bool = false, maxPicture: RenderSize? = nil)
        -> (Int, Int, RenderSize) -> RenderLayout {
        let requested = size.flatMap(parseWxH)
        let fit = fitMode, scale = scale
        return { rows, columns, cell in
            var screenRows: Int32 = 0, screenColumns: Int32 = 0
            let onLastRow = animplay_window_size(1, &screenRows, &screenColumns) == 0 || rows >= Int(screenRows)
            let rows = max(1, rows - (spareRow && onLastRow ? 1 : 0)), columns = max(1, columns)
            let boxCols = min(columns, requested?.0 ?? columns), boxRows = min(rows, requested?.1 ?? rows)
            let pixels = cell != RenderLayout.halfBlockCell
            var l = RenderLayout.compute(canvasWidth: canvasWidth, canvasHeight: canvasHeight,
                                         columns: boxCols, rows: boxRows, fit: fit, scale: scale, cell: cell,
                                         terminalScales: terminalScales && pixels, maxPixels: pixels ? maxPicture : nil)
            l.row += (rows - boxRows) / 2
            l.column += (columns - boxCols) / 2
            return l
        }
    }

    // MARK: - Still image

    /// A single frame is printed at the cursor like `cat`, without entering curses mode: the
    /// output the plan picks shows frame 0 and prints it (`printLast`), as at the end of a play.
    private func printStill(_ decoder: any AnimationDecoder, index: Int, endedEarly: String?) throws(CLIFailure) {
        // Real pixels when the terminal has them, chosen as for animations (one probe serves
        // both this choice and the background below).
        let request = BackgroundRequest(bg)!
        // A previewer's pipe: cells, and no query (the terminal, if any, belongs to the previewer).
        let toTerminal = isatty(1) != 0
        var late: TerminalProbe.LateReplies?
        defer { TerminalProbe.absorbLate(late) }   // after the still: replies must not reach the shell
        func probeTerminal() -> TerminalReport {
            let outcome = TerminalProbe.run()
            late = outcome.late
            return outcome.report
        }
        let probed = toTerminal && !graphicsOptions.wantsCells ? probeTerminal() : nil
        var plan = try probed.map { (p) throws(CLIFailure) in
            try graphicsOptions.plan(p, symbols: symbolOptions.symbols, memoryBytes: decodeOptions.memoryBytes)
        } ?? .cells(symbolOptions.symbols)
        // Inside tmux a kitty image would stay on kitty's screen whatever tmux does with the
        // pane: the still is printed as cells, which tmux scrolls like text.
        if case .kitty(let t, _) = plan, t.tmuxPassthrough { plan = .cells(symbolOptions.symbols) }
        var report = probed ?? TerminalReport()
        var cells = OutputPlan.CellSettings(mode: .truecolor)
        if !plan.isPixels {
            // A previewer's pipe gets no warning line: it would show in every preview.
            let loaded = TerminfoEntry.start(warn: toTerminal) { animplay_setupterm($0, 1) != 0 ? () : nil }
            if case .failure(let failed) = loaded { throw CLIFailure(message: TerminfoEntry.refusal(failed.type)) }
            var facts = TerminalColorFacts(
                colors: Int(animplay_tigetnum("colors")), pairs: Int(animplay_tigetnum("pairs")),
                hasRGB: animplay_has_rgb() != 0,
                colortermTruecolor: TerminalColorFacts.colortermSaysTruecolor(getenv("COLORTERM").map { String(cString: $0) }),
                canSaveCursor: true)
            let (guessed, _) = ColorSelection.choose(colors, facts: facts)
            // The terminal is asked only when its answers matter: its background, its 16 colours
            // (and how many colours it really has, when terminfo's guess is 16).
            if toTerminal && probed == nil && (request == .auto || guessed == .palette16) { report = probeTerminal() }
            facts.answered(report)
            let (colorMode, _) = ColorSelection.choose(colors, facts: facts)
            // --symbols lowered to what the terminal will show (fonts, kitty's own glyphs).
            let (resolved, symbolWarning) = symbolOptions.resolved(for: report, env: GraphicsOptions.environment())
            if let symbolWarning { StandardError.line("animplay: warning: \(symbolWarning)") }
            plan = .cells(resolved.symbols)
            cells = OutputPlan.CellSettings(mode: colorMode, dither: palette.dither, palette16: report.answeredPalette16)
        }
        let background = request.resolve(report).mode
        var layout: RenderLayout
        if toTerminal {
            var rows: Int32 = 24, cols: Int32 = 80
            _ = animplay_window_size(1, &rows, &cols)
            // Leave a line for the prompt that follows. A still is scaled here (printed once, it
            // has no placement for the terminal to stretch).
            layout = layoutFunction(canvasWidth: decoder.info.width, canvasHeight: decoder.info.height,
                                    spareRow: plan.needsSpareRow, maxPicture: plan.maxPicture)(Int(rows) - 1, Int(cols), plan.cell)
        } else {
            let box = Self.previewBox(size: size)
            layout = RenderLayout.compute(canvasWidth: decoder.info.width, canvasHeight: decoder.info.height,
                                          columns: box.columns, rows: box.rows, fit: fitMode, scale: scale, cell: plan.cell)
        }
        layout.row = 0
        let compositor: Compositor
        do { compositor = try Compositor(decoder: decoder) } catch {
            throw CLIFailure(file: source.displayName, error: error)
        }
        let (preparer, makeOutput) = plan.build(background: background)
        let output = makeOutput(nil, TerminalOutput.sink(fd: 1), cells)
        output.show(preparer.scale(compositor.frame(at: index), index: index, to: layout.size))
        output.printLast()
        reportWarnings(decoder.info, problems: compositor.problems, file: source.displayName, endedEarly: endedEarly)
    }
}

extension Play {
    /// The box a preview written to a pipe fits into, in cells: --size, else what fzf says its
    /// preview window is, else COLUMNS x LINES (lf, ranger and shells export them), else 80x24.
    static func previewBox(size: String?, env: (String) -> String? = { getenv($0).map { String(cString: $0) } })
        -> (columns: Int, rows: Int) {
        if let size, let (w, h) = parseWxH(size) { return (w, h) }
        for (c, r) in [("FZF_PREVIEW_COLUMNS", "FZF_PREVIEW_LINES"), ("COLUMNS", "LINES")] {
            if let w = env(c).flatMap({ Int($0) }), let h = env(r).flatMap({ Int($0) }), w > 0, h > 0 { return (w, h) }
        }
        return (80, 24)
    }

    /// What is wrong with a --size value: its form, or a zero.
    static func sizeProblem(_ s: String) -> String {
        let parts = s.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        if parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) {
            return "--size must be at least 1x1 cells, got \(w)x\(h)"
        }
        return "--size must look like WxH in cells (e.g. 80x24), got '\(s)'"
    }

    static var termName: String { TerminfoEntry.term ?? "(unset)" }
}

extension PlaybackMode: ExpressibleByArgument {}
extension ColorRequest: ExpressibleByArgument {}
extension FitMode: EnumerableFlag {}


extension TerminalColorFacts {
    /// Adds what the terminal said about its colours in the probe (terminfo's word is TERM's,
    /// often plain `xterm`: 8 colours).
    mutating func answered(_ report: TerminalReport) {
        answeredDirectColor = report.directColor == true
        answeredColors = report.answeredColors ?? 0
    }
}
