import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// `--bg`: what shows behind transparent pixels.
enum BackgroundRequest: Equatable {
    /// The terminal's background colour from the probe (OSC 11), blended in sRGB as browsers do.
    case auto
    case fixed(BackgroundMode)

    /// Assumed when the terminal does not say: most terminals' default background is black.
    static let darkDefault = RGBColor(0, 0, 0)

    init?(_ s: String) {
        switch s.lowercased() {
        case "auto": self = .auto
        case "none", "default", "terminal": self = .fixed(.terminal)
        case "checker", "checkerboard": self = .fixed(.checker)
        case "black": self = .fixed(.color(0, 0, 0))
        case "white": self = .fixed(.color(255, 255, 255))
        case "grey", "gray": self = .fixed(.color(128, 128, 128))
        default:
            guard let (r, g, b) = parseHexColor(s) else { return nil }
            self = .fixed(.color(r, g, b))
        }
    }

    /// The mode to render with, and a note for the status line when the background is assumed.
    func resolve(_ report: TerminalReport) -> (mode: BackgroundMode, note: String?) {
        switch self {
        case .fixed(let m): return (m, nil)
        case .auto:
            if let c = report.background { return (.terminalBlend(c.r, c.g, c.b), nil) }
            let d = Self.darkDefault
            return (.terminalBlend(d.r, d.g, d.b), "bg \(d) assumed")
        }
    }
}
