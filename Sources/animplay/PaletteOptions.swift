import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser

/// How colours are reduced in 256- and 16-colour modes.
struct PaletteOptions: ParsableArguments {
    @Option(help: ArgumentHelp("In 256- and 16-colour modes: none, ordered (a fixed pattern: steady while animating) or diffusion (error diffusion: closest colours, but the pattern moves with the picture).", valueName: "MODE"))
    var dither: DitherMode = .none
}

extension DitherMode: ExpressibleByArgument {}
