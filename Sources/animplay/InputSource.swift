import AnimatedCore
import AnimatedNet
import AnimatedTerminal
#if canImport(Glibc)
import Glibc
#endif

/// An input opened for decoding: the decoder, the spool it reads while the bytes are still
/// arriving, and the revalidation of a cached copy still running in the background.
struct OpenedInput {
    var decoder: any AnimationDecoder
    var spool: SpoolBuffer?
    var revalidation: BackgroundRevalidation?
    /// The bytes are a cached copy of a URL.
    var fromCache = false
    /// The URL's download still filling `spool` (stopped by `stopDownload`).
    var download: HTTPDownload?

    init(_ decoder: any AnimationDecoder, spool: SpoolBuffer? = nil, revalidation: BackgroundRevalidation? = nil,
         fromCache: Bool = false) {
        self.decoder = decoder
        self.spool = spool
        self.revalidation = revalidation
        self.fromCache = fromCache || revalidation != nil
    }

    /// A download still under way when the command is done with it (q during playback, an
    /// error): aborted, and its thread waited for (libcurl sees the cancel within a second),
    /// so that the connection is closed by libcurl, not abandoned to the exit.
    static func stop(_ download: HTTPDownload?) {
        guard let download, !download.spool.progress.finished else { return }
        download.cancel()
        download.waitUntilEnded(seconds: 2)
    }

    /// For the status line: where the bytes come from, while that can change (nil: a file or
    /// a stream, whose download figures say enough).
    var sourceNote: (@Sendable () -> String)? {
        guard fromCache else { return nil }
        guard let revalidation else { return { "cached" } }
        return {
            switch revalidation.current {
            case .pending: return "cached, checking"
            case .notModified: return "cached, current"
            case .newVersionArriving: return "cached, newer version arriving"
            case .newVersionStored: return "cached, newer version saved for next run"
            case .newVersionNotCached: return "cached, newer version on the server"
            case .unreachable: return "cached, server unreachable"
            case .failed: return "cached, not confirmed"
            }
        }
    }
}

/// Where the bytes of one animation come from: a regular file (read in place), or a stream
/// spooled as it arrives (standard input, a FIFO or process substitution, later a URL).
enum InputSource {
    /// `-` or no file with a pipe on standard input.
    static let stdinName = "-"

    /// Opens `name` as a decoder. Streams are read to their end first, unless `progressive`:
    /// then an animation opens as soon as its first frame is in, on a source that keeps growing (the
    /// spool is returned so that the player can follow it). A still PNG waits for the end.
    /// `watch` gets a download's spool as soon as there is one (feedback while waiting).
    static func open(_ name: String, options: DecodeOptions, network: NetworkOptions,
                     progressive: Bool, watch: (@Sendable (SpoolBuffer) -> Void)? = nil) throws(AnimatedError) -> OpenedInput {
        if HTTPDownload.isURL(name) {
            return try openURL(name, options: options, network: network, progressive: progressive, watch: watch)
        }
        if let scheme = urlScheme(name) {
            throw .unsupportedFormat("\(scheme): URLs are not supported: only http and https (or a local path)")
        }
        if name == stdinName && isatty(0) != 0 {
            throw .unreadable("standard input is a terminal: pipe an image into animplay (cat x.gif | animplay -) or name a file")
        }
        guard let spool = try SpoolReader.openStream(path: name, maxBytes: network.maxInputMb << 20,
                                                      limitHint: "see --max-input-mb") else {
            return OpenedInput(try AnimationLoader.open(ByteSource(path: name), options: options))
        }
        return OpenedInput(try open(spool: spool, options: options, progressive: progressive), spool: spool)
    }

    /// A decoder on a spool that is being filled (see `open`).
    static func open(spool: SpoolBuffer, options: DecodeOptions, progressive: Bool) throws(AnimatedError) -> any AnimationDecoder {
        try AnimationLoader.open(spool: spool, options: options, progressive: progressive)
    }

    /// Opens `url` through the library's URL policy (`URLLoader`: cache, revalidation,
    /// fallbacks) with the command line's network options; warnings go to standard error.
    static func openURL(_ url: String, options: DecodeOptions, network: NetworkOptions,
                        progressive: Bool, watch: (@Sendable (SpoolBuffer) -> Void)? = nil) throws(AnimatedError) -> OpenedInput {
        var cache = network.noCache ? nil : HTTPCache.defaultDirectory().map {
            // One lookup per process: the memory layer would only cost a copy.
            HTTPCache(directory: $0, maxBytes: network.cacheMaxMb << 20, keepsBodiesInMemory: false)
        }
        if let problem = cache?.problem() {
            StandardError.line("animplay: warning: \(problem); going on without the cache")
            cache = nil
        }
        let shown = URLText.masked(url)
        let loading = URLLoadOptions(download: network.downloadOptions, cache: cache, refresh: network.refresh,
                                     progressive: progressive,
                                     warn: { StandardError.line("animplay: \(shown): warning: \($0)") },
                                     watch: watch)
        let opened = try URLLoader.open(url, options: options, loading: loading)
        var input = OpenedInput(opened.decoder, spool: opened.spool, revalidation: opened.revalidation,
                                fromCache: opened.fromCache)
        input.download = opened.download
        return input
    }

    /// "ftp" for "ftp://host/x": a URL of a scheme animplay does not download.
    static func urlScheme(_ name: String) -> String? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let scheme = name[..<colon].lowercased()
        let allowed: (Character) -> Bool = { c in c.isLetter || c.isNumber || c == "+" || c == "-" || c == "." }
        guard !scheme.isEmpty, scheme.allSatisfy(allowed) else { return nil }
        let rest = name[name.index(after: colon)...]
        guard rest.hasPrefix("//") || scheme == "file" || scheme == "data" else { return nil }
        return scheme
    }

    /// Whether the image itself comes from standard input (keys then come from /dev/tty).
    static func readsStandardInput(_ name: String) -> Bool {
        if name == stdinName { return true }
        if name == "/dev/stdin" || name == "/proc/self/fd/0" || name == "/dev/fd/0" { return isatty(0) == 0 }
        return false
    }

    /// Ends-early note for a stream that stopped with an error after some bytes.
    static func earlyEnd(_ spool: SpoolBuffer?) -> String? {
        guard let p = spool?.progress, let failure = p.failure, p.count > 0, !p.fatal else { return nil }
        return "input ended early after \(p.count) bytes (\(failure)); showing what arrived"
    }
}
