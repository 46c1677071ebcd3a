import AnimatedCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Frame 0 of the file animplay was most likely asked to play, decoded on a thread of its own
/// from before the arguments are parsed. A cold start spends 5–7 ms parsing them
/// (ArgumentParser's reflection, and the runtime's first protocol-conformance lookups, each a
/// scan of every conformance in the binary), as long as decoding a 1280×720 GIF frame takes,
/// and the first image waited for the two in turn.
///
/// A guess from the raw arguments: no subcommand named first but `play`, exactly one argument
/// that names a regular file, and none of the options under which `play` would not take it
/// (`--inline`, `--frame`, `--grid`, a sheet's `--sprite` or `--atlas`, help, version,
/// completion scripts) or that set decoding limits (`--max-…`: what a file may cost is then
/// the user's to say, and the guess decodes under the default limits). `Play` takes the guess
/// when the parsed options name that same file for an animation played in the alternate
/// screen (`take(for:)`); any other run drops it (waiting for its thread). Only the file is
/// read: nothing reaches the terminal before the arguments are known.
enum EarlyFirstFrame {
    /// The guessed path and its frame 0 (nil when there was no guess, or once taken).
    private static let guess = Mutex<(path: String, early: FirstFrameAhead.Early)?>(nil)

    /// Options after which the guess would be dropped or must not be made.
    private static let refusing: [String] = ["--inline", "--frame", "--grid", "--sprite", "--atlas", "--max-",
                                             "-h", "--help", "--version", "--generate-completion-script"]

    /// Starts decoding the guessed file's frame 0, if `arguments` (without the program's name)
    /// allow a guess.
    static func start(_ arguments: [String]) {
        guard let path = guessedFile(arguments) else { return }
        let early = FirstFrameAhead.Early(path: path, options: DecodeOptions())
        guess.withLock { $0 = (path, early) }
    }

    /// The one regular file `arguments` name, if they allow a guess (see the type's doc).
    static func guessedFile(_ arguments: [String]) -> String? {
        var arguments = arguments[...]
        if let first = arguments.first, Animplay.configuration.subcommands.contains(where: { $0._commandName == first }) {
            guard first == Play._commandName else { return nil }
            arguments = arguments.dropFirst()
        }
        var files: [String] = []
        var positional = false
        for argument in arguments {
            if !positional && argument == "--" { positional = true; continue }
            if !positional && argument.hasPrefix("-") && argument != "-" {
                if refusing.contains(where: { argument == $0 || argument.hasPrefix($0 == "--max-" ? $0 : $0 + "=") }) {
                    return nil
                }
                continue
            }
            var st = stat()
            if stat(argument, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG { files.append(argument) }
        }
        return files.count == 1 ? files[0] : nil
    }

    /// The guessed frame 0 if it is of `path`; any other guess is dropped (nil: drop it).
    static func take(for path: String?) -> FirstFrameAhead.Early? {
        let taken = guess.withLock { g -> (path: String, early: FirstFrameAhead.Early)? in
            defer { g = nil }
            return g
        }
        guard let taken, taken.path == path else { return nil }
        return taken.early
    }
}
