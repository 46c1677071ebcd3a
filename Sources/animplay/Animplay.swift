import ArgumentParser

@main
struct Animplay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animplay",
        abstract: "Play animated GIF, APNG and WebP images in the terminal.",
        discussion: """
        animplay FILE plays FILE (the `play` subcommand is the default). `info` describes an \
        animation, `dump` writes its composited frames as PPM/PAM/PNG files, `convert` writes it as GIF, APNG or WebP. Every subcommand also \
        takes sprite sheets (--sprite CxR, --atlas FILE.json) and frame sequences (several \
        files, or a folder).

        EXIT STATUS
          0  success (warnings about damaged but usable files go to stderr; `info` lists them)
          1  runtime failure (terminal unavailable, interrupted)
          2  a file could not be read or an output could not be written
          3  the file is not a supported image, or is too damaged to show any frame
          4  the image exceeds a decoding limit (see --max-pixels, --max-dimension, --max-memory-mb)
          5  a download failed (HTTP status, DNS, refused, timeout, TLS, --max-download-mb)
         64  usage error
        """,
        version: AnimplayVersion.string,
        subcommands: [Play.self, Info.self, Dump.self, Convert.self, Probe.self, Cache.self],
        defaultSubcommand: Play.self
    )
}
