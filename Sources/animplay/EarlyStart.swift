import AnimatedCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What starts before the arguments are parsed, for the file animplay was most likely asked to
/// play: its decoder opened (`DecoderAhead`: the format sniffed, every frame indexed) on one
/// thread and its frame 0 decoded (`FirstFrameAhead.Early`, GIF) on another. A cold start
/// spends 5–7 ms parsing the arguments (ArgumentParser's reflection, and the runtime's first
/// protocol-conformance lookups, each a scan of every conformance in the binary), about as long
/// as opening the 10 MB benchmark GIF or decoding one of its 1280×720 frames took (with
/// giflib's LZW decoder: 7 ms), and the first image waited for the three in turn.
///
/// A guess from the raw arguments: no subcommand named first but `play`, exactly one argument
/// that names a regular file, and none of the options under which `play` would not take it
/// (`--inline`, `--frame`, `--grid`, a sheet's `--sprite` or `--atlas`, help, version,
/// completion scripts) or that set decoding limits (`--max-…`: what a file may cost is then
/// the user's to say, and the guess opens it under the default limits). `Play` takes the guess
/// when the parsed options name that same file for an animation played in the alternate
/// screen (`take(for:)`), and uses its decoder when the options it would open the file with
/// are the guess's (`SourceOptions.openAhead`: no retiming); any other run drops it (waiting
/// for its threads). Only the file is read: nothing reaches the terminal before the arguments
/// are known.
enum EarlyStart {
    /// The guessed file, opened and its frame 0 decoding.
    struct Guess: Sendable {
        let path: String
        let decoder: DecoderAhead
        let frameZero: FirstFrameAhead.Early
    }

    /// The guess (nil when there was none, or once taken).
    private static let guess = Mutex<Guess?>(nil)

    /// Options after which the guess would be dropped or must not be made.
    private static let refusing: [String] = ["--inline", "--frame", "--grid", "--sprite", "--atlas", "--max-",
                                             "-h", "--help", "--version", "--generate-completion-script"]

    /// Starts opening the guessed file and decoding its frame 0, if `arguments` (without the
    /// program's name) allow a guess; true if they did.
    @discardableResult
    static func start(_ arguments: [String]) -> Bool {
        guard let path = guessedFile(arguments) else { return false }
        let options = DecodeOptions()
        let started = Guess(path: path, decoder: DecoderAhead(path: path, options: options),
                            frameZero: FirstFrameAhead.Early(path: path, options: options))
        guess.withLock { $0 = started }
        return true
    }

    /// The arguments `play` would parse, for arguments known to allow a guess (`start` made
    /// one; the files are not looked at again), when none of them could be taken for a
    /// subcommand by the root's parser (a file named `info` or `help`): the root then has
    /// nothing but `play` to do, and `play` may parse them as the root command.
    static func playArguments(guessed arguments: [String]) -> [String]? {
        var rest = arguments[...]
        if rest.first == Play._commandName { rest = rest.dropFirst() }
        let names = Animplay.configuration.subcommands.map { $0._commandName } + ["help"]
        return rest.contains(where: { names.contains($0) }) ? nil : Array(rest)
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

    /// The guess if it is of `path`; any other guess is dropped (nil: drop it).
    static func take(for path: String?) -> Guess? {
        guard let taken = removeGuess(), taken.path == path else { return nil }
        return taken
    }

    /// The guess, if any, no longer the process's.
    private static func removeGuess() -> Guess? {
        guess.withLock { g -> Guess? in
            defer { g = nil }
            return g
        }
    }

    /// Lets the guess's threads finish on their own, for a run that ends before `play` could
    /// take it (arguments `play` refused: a usage error follows at once, and should not wait
    /// for a large file's indexing). Left in place, its threads were never joined before the
    /// process exited (ThreadSanitizer's "thread leak").
    static func abandon() {
        guard let abandoned = removeGuess() else { return }
        abandoned.decoder.detach()
        abandoned.frameZero.detach()
    }
}
