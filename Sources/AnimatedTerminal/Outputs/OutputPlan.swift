import AnimatedCore

/// How frames reach the terminal: the output, and what it needs to know about the terminal.
/// Decided once (`decide`: the options, the environment and the terminal's answers), built
/// once (`build`: one switch makes the preparer and the output). Everything after that —
/// the playback loop, the key filter, a still image — knows no output by name.
public enum OutputPlan: Sendable, Equatable {
    /// Text cells of `SymbolSet` glyphs. The colour mode is the screen's to choose (its
    /// terminfo facts, known once it starts): `build` takes it.
    case cells(SymbolSet)
    /// kitty graphics, frames uploaded through `KittyMedium`.
    case kitty(TerminalInfo, KittyMedium)
    /// Sixel images.
    case sixel(TerminalInfo)
    /// iTerm2 inline images (OSC 1337).
    case iterm2(TerminalInfo)

    /// The terminal facts of a pixel output (nil for cells).
    public var terminal: TerminalInfo? {
        switch self {
        case .cells: nil
        case .kitty(let t, _), .sixel(let t), .iterm2(let t): t
        }
    }

    /// Pixels per cell to lay frames out in.
    public var cell: RenderSize { terminal?.cell ?? RenderLayout.halfBlockCell }

    /// Images the terminal paints below the cursor (sixel, iTerm2) keep off the screen's last
    /// row: written there, they would scroll the screen.
    package var needsSpareRow: Bool {
        switch self {
        case .sixel, .iterm2: true
        case .cells, .kitty: false
        }
    }

    /// The terminal enlarges images itself (kitty's `c=`/`r=`, iTerm2's width and height): frames
    /// of an enlargement by a fraction go at the canvas's own size (`RenderLayout.compute`).
    package var terminalScales: Bool {
        switch self {
        case .kitty, .iterm2: true
        case .cells, .sixel: false
        }
    }

    /// The largest picture this output can show, in pixels (nil: the window is the limit):
    /// the terminal's maximum sixel size for sixel. Layouts pass it to `RenderLayout.compute`.
    package var maxPicture: RenderSize? {
        if case .sixel(let t) = self { return t.maxSixelSize }
        return nil
    }

    /// Where this plan falls back to when the terminal refuses it (pixels → cells).
    public var isPixels: Bool { terminal != nil }

    /// The choice and, when graphics were wanted but cannot be used, the one warning to print
    /// (before the screen starts). `windowCell`: the kernel's cell size in pixels, if known.
    package static func decide(_ request: GraphicsRequest, report: TerminalReport, env: [String: String],
                               tmuxAllowsPassthrough: () -> Bool, windowCell: RenderSize?,
                               symbols: SymbolSet, kittyMedium: KittyMedium = .direct,
                               screen: (columns: Int, rows: Int) = (80, 24),
                               memoryBytes: Int = DecodeLimits.default.maxDecodedBytes)
        -> (plan: OutputPlan, decision: GraphicsPolicy.Decision, warning: String?) {
        let inTmux = env["TMUX"] != nil
        // Inside tmux, a second DA1 answer means the wrapped queries got through: passthrough
        // is on. Otherwise ask tmux itself.
        let passthrough = inTmux && (report.da1Count >= 2 || tmuxAllowsPassthrough())
        let answers = report.answeredDA1
            ? TerminalGraphicsAnswers(kittyGraphics: report.kittyGraphics, sixel: report.sixel, version: report.version)
            : nil
        var decision = GraphicsPolicy.decide(request, env: env, answers: answers, tmuxPassthrough: passthrough)
        // A named mode the terminal lacks: auto's choice (`.forced`), said once; `.required`
        // leaves the refusal to the caller.
        let lacking = decision.unsupported.map { "--graphics \(request.named?.rawValue ?? ""): \($0); using \(decision.graphics.rawValue)" }
        if case .required = request, decision.unsupported != nil { return (.cells(symbols), decision, nil) }
        let wanted = decision.graphics
        guard wanted != .cells else { return (.cells(symbols), decision, lacking) }
        let reported = report.reportedCellPixels.map { RenderSize(width: $0.width, height: $0.height) }
        // Sizes no screen has (`CellPixelBounds`) are not believed: a hostile or broken answer
        // would size a frame of hundreds of gigabytes.
        let believable = { (c: RenderSize) in
            CellPixelBounds.problem(width: c.width, height: c.height, columns: screen.columns, rows: screen.rows)
        }
        let rejected = [windowCell, reported].compactMap { $0 }.compactMap(believable).first
        guard let cell = [windowCell, reported].compactMap({ $0 }).first(where: { believable($0) == nil }) else {
            decision.graphics = .cells
            let warning = rejected.map { "the terminal reports \($0); using cells" }
                ?? (wanted == .kitty ? "the terminal reports no cell size in pixels; using cells"
                                     : "the terminal does not report its cell size in pixels; using cells")
            return (.cells(symbols), decision, warning)
        }
        guard CellPixelBounds.fits(width: cell.width, height: cell.height, columns: screen.columns, rows: screen.rows,
                                   memoryBytes: memoryBytes) else {
            decision.graphics = .cells
            return (.cells(symbols), decision,
                    "a screen of \(screen.columns)x\(screen.rows) cells of \(cell.width)x\(cell.height) pixels needs more memory than --max-memory-mb allows; using cells")
        }
        let registers = max(2, min(256, report.colorRegisters ?? TerminalInfo.defaultRegisters))
        let info = TerminalInfo(cell: cell, reportedCell: reported, tmuxPassthrough: decision.tmux,
                                colorRegisters: registers,
                                maxSixelSize: report.sixelMaxSize.map { RenderSize(width: $0.width, height: $0.height) })
        switch decision.graphics {
        case .kitty: return (.kitty(info, kittyMedium), decision, lacking)
        case .sixel: return (.sixel(info), decision, lacking)
        case .iterm2: return (.iterm2(info), decision, lacking)
        case .cells: return (.cells(symbols), decision, lacking)
        }
    }

    /// What the cells need besides the plan: their renderer's settings. `scaler`: the cells'
    /// preparer (half blocks: area average; finer symbols: the glyph chooser).
    public struct CellSettings {
        /// How colours are written (true colour, 256, 16).
        public var mode: ColorMode
        /// Dithering for the reduced palettes.
        public var dither: DitherMode
        /// The terminal's own 16 colours, when it answered (16-colour mode matches them).
        public var palette16: [RGBColor]?
        /// Settings for `mode`, without dithering unless asked.
        public init(mode: ColorMode, dither: DitherMode = .none, palette16: [RGBColor]? = nil) {
            self.mode = mode; self.dither = dither; self.palette16 = palette16
        }
    }

    /// The cells' frame preparer for `symbols`.
    public static func cellPreparer(_ symbols: SymbolSet, background: BackgroundMode) -> any FrameScaler {
        symbols == .half ? AreaAverageScaler() : SymbolScaler(symbols: symbols, background: background)
    }

    /// The one switch: the preparer (give it to the `Player` before the screen starts) and a
    /// function that makes the output once the screen is up (`screen` nil: a still, printed
    /// with `printLast`).
    public func build(background: BackgroundMode)
        -> (preparer: any FrameScaler,
            output: (_ screen: (any CellScreen)?, _ sink: any TerminalSink, _ cells: CellSettings) -> any FrameOutput) {
        switch self {
        case .cells(let symbols):
            let preparer = Self.cellPreparer(symbols, background: background)
            return (preparer, { screen, sink, cells in
                CellOutput(screen: screen, sink: sink,
                           renderer: CellRenderer(mode: cells.mode, background: background, dither: cells.dither,
                                                  palette16: cells.palette16),
                           mode: cells.mode, preparer: preparer)
            })
        case .kitty(let terminal, let medium):
            let preparer = KittyFramePreparer(background: background, medium: medium)
            return (preparer, { screen, sink, _ in
                KittyOutput(screen: screen, sink: sink, terminal: terminal, medium: medium, preparer: preparer)
            })
        case .sixel(let terminal):
            let preparer = SixelFramePreparer(registers: terminal.colorRegisters, background: background)
            return (preparer, { screen, sink, _ in
                InlineImageOutput(kind: .sixel, screen: screen, sink: sink, terminal: terminal, preparer: preparer)
            })
        case .iterm2(let terminal):
            let preparer = ITermFramePreparer(background: background)
            return (preparer, { screen, sink, _ in
                InlineImageOutput(kind: .iterm2, screen: screen, sink: sink, terminal: terminal, preparer: preparer)
            })
        }
    }
}
