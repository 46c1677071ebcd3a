import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser

/// `--symbols`: which block glyphs cells are drawn with.
struct SymbolOptions: ParsableArguments {
    // ASCII only: the man page generator (generate-manual) drops other characters.
    @Option(help: ArgumentHelp("""
        Cell glyphs: half (half blocks, 1x2 pixels per cell, every font has them), quadrant (2x2), \
        sextant (2x3, Unicode 13) or octant (2x4, Unicode 16; few fonts yet). Finer symbols \
        choose each cell's glyph and two colours to match the pixels.
        """, valueName: "SET"))
    var symbols: SymbolSet = .half

    /// Octants are Unicode 16: C libraries that predate it give them no width (glibc 2.36's
    /// wcwidth returns -1), so ncurses cannot keep its model of the screen straight; animplay
    /// writes them itself, in any colour mode.
    func cellPath(_ path: CellPath, canSaveCursor: Bool) -> CellPath {
        symbols == .octant && path == .curses && canSaveCursor ? .direct : path
    }
}

extension SymbolSet: ExpressibleByArgument {}
