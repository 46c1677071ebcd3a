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
          0  success (warnings about damaged but usable files go to stderr;
             `info` lists them)
          1  runtime failure (terminal unavailable, interrupted)
          2  a file could not be read or an output could not be written
          3  the file is not a supported image, or is too damaged to show
             any frame
          4  the image exceeds a decoding limit (--max-pixels,
             --max-dimension, --max-memory-mb)
          5  a download failed (HTTP status, DNS, refused, timeout, TLS,
             --max-download-mb)
         64  usage error
        """,
        version: AnimplayVersion.string,
        subcommands: [Play.self, Info.self, Dump.self, Convert.self, Probe.self, Cache.self],
        defaultSubcommand: Play.self
    )

    /// As ArgumentParser's, except that completion scripts know the default subcommand
    /// (CompletionScripts).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let shell = completionShellAsked(arguments) {
            print(CompletionScripts.script(for: shell), terminator: "")
            return
        }
        let guessed = EarlyStart.start(arguments)
        // A guessed play is parsed by `Play` as the root command: the same options parsed the
        // same way, without the root's own pass, which reflects every option of its default
        // subcommand to look for pass-through arguments (one of the three times a cold parse
        // reflects `play`'s ~50 options: 1.1 ms of its 7). Arguments `Play` refuses go the
        // usual way, so errors and usage are the root's.
        if guessed, let playArguments = EarlyStart.playArguments(guessed: arguments) {
            if var play = try? Play.parseAsRoot(playArguments) {
                do { try play.run() } catch { exit(withError: error) }
                return
            }
            // `play` refused them: the root reports the usage error and exits.
            EarlyStart.abandon()
        }
        main(nil)
    }

    /// `--generate-completion-script SHELL` (or `=SHELL`) as the only request, with a shell the
    /// parser knows; anything else goes to the parser (which reports its own errors).
    private static func completionShellAsked(_ arguments: [String]) -> CompletionShell? {
        let flag = "--generate-completion-script"
        if arguments.count == 2, arguments[0] == flag { return CompletionShell(rawValue: arguments[1]) }
        if arguments.count == 1, arguments[0].hasPrefix(flag + "=") {
            return CompletionShell(rawValue: String(arguments[0].dropFirst(flag.count + 1)))
        }
        return nil
    }
}
