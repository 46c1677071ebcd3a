import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `--symbols`: which block glyphs cells are drawn with.
struct SymbolOptions: ParsableArguments {
    // ASCII only: the man page generator (generate-manual) drops other characters.
    @Option(help: ArgumentHelp("""
        Cell glyphs: half (half blocks, 1x2 pixels per cell, every font has them), quadrant (2x2), \
        sextant (2x3, Unicode 13) or octant (2x4, Unicode 16; few fonts yet). Finer symbols \
        choose each cell's glyph and two colours to match the pixels. When no installed font has \
        them and the terminal does not draw them itself (kitty: sextants since 0.19, octants \
        since 0.40), the next finer set that shows is used, with one warning line.
        """, valueName: "SET"))
    var symbols: SymbolSet = .half

    /// Octants are Unicode 16: C libraries that predate it give them no width (glibc 2.36's
    /// wcwidth returns -1), so ncurses cannot keep its model of the screen straight; animplay
    /// writes them itself, in any colour mode.
    func cellPath(_ path: CellPath, canSaveCursor: Bool) -> CellPath {
        symbols == .octant && path == .curses && canSaveCursor ? .direct : path
    }
}

extension SymbolOptions {
    /// These options with `--symbols` lowered to the finest set the terminal will show
    /// (`SymbolSupport`), and the warning line to print when it had to be lowered.
    func resolved(for report: TerminalReport, env: [String: String]) -> (SymbolOptions, warning: String?) {
        guard SymbolSupport.probeScalar(symbols) != nil else { return (self, nil) }
        let local = !KittyMedium.overSSH(env)
        let usable = SymbolSupport.usable(symbols, version: report.version) { scalar in
            local ? Self.installedFontHas(scalar) : nil
        }
        guard usable != symbols else { return (self, nil) }
        let hex = String(SymbolSupport.probeScalar(symbols)!, radix: 16, uppercase: true)
        let who = report.version.map { "; \(Self.printable($0)) does not draw it itself" } ?? ""
        var o = self
        o.symbols = usable
        return (o, "--symbols \(symbols.rawValue): no installed font has U+\(hex)\(who); using \(usable.rawValue)")
    }

    /// Whether fontconfig knows an installed font with `scalar` (nil: fontconfig not there).
    static func installedFontHas(_ scalar: UInt32) -> Bool? {
        guard let f = popen("fc-list ':charset=\(String(scalar, radix: 16))' family 2>/dev/null", "r") else { return nil }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = fread(&buf, 1, buf.count, f)
        let status = pclose(f)
        guard status == 0 else { return nil }
        return n > 0
    }

    static func printable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.prefix(40).map { (0x20..<0x7F).contains($0.value) ? $0 : "?" }))
    }
}

extension SymbolSet: ExpressibleByArgument {}
