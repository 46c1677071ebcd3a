import AnimatedCore
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

    init(_ decoder: any AnimationDecoder, spool: SpoolBuffer? = nil, revalidation: BackgroundRevalidation? = nil,
         fromCache: Bool = false) {
        self.decoder = decoder
        self.spool = spool
        self.revalidation = revalidation
        self.fromCache = fromCache || revalidation != nil
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
                     progressive: Bool, watch: ((SpoolBuffer) -> Void)? = nil) throws(AnimatedError) -> OpenedInput {
        if HTTPDownload.isURL(name) {
            return try openURL(name, options: options, network: network, progressive: progressive, watch: watch)
        }
        if let scheme = urlScheme(name) {
            throw .unsupportedFormat("\(scheme): URLs are not supported: only http and https (or a local path)")
        }
        if name == stdinName && isatty(0) != 0 {
            throw .unreadable("standard input is a terminal: pipe an image into animplay (cat x.gif | animplay -) or name a file")
        }
        guard let spool = try SpoolReader.openStream(path: name) else {
            return OpenedInput(try AnimationLoader.open(ByteSource(path: name), options: options))
        }
        return OpenedInput(try open(spool: spool, options: options, progressive: progressive), spool: spool)
    }

    /// A decoder on a spool that is being filled (see `open`).
    static func open(spool: SpoolBuffer, options: DecodeOptions, progressive: Bool) throws(AnimatedError) -> any AnimationDecoder {
        var seen = spool.waitForMore(than: 15)!
        let head = try ByteSource(spool: spool).bytes(at: 0, length: 16)
        let known = AnimationLoader.recognizes(head)
        // Not an image (an HTML page, say): no need to wait for the rest.
        if !known && head.count == 16 { throw .unsupportedFormat("not a GIF, PNG/APNG or WebP file") }
        if progressive && !seen.finished {
            if known {
                while !seen.finished {
                    let source = ByteSource(spool: spool)
                    do {
                        return try AnimationLoader.open(source, options: options)
                    } catch {
                        // Header or first frame not complete yet: wait for more and try again.
                        guard error.kind == .invalid, source.isGrowing else { throw error }
                    }
                    seen = spool.waitForMore(than: source.count)!
                }
            }
        }
        let end = spool.waitUntilFinished()
        if let failure = end.failure, end.count == 0 || end.fatal { throw .unreadable(failure) }
        if end.count == 0 { throw .invalid("empty input") }
        return try AnimationLoader.open(ByteSource(spool: spool), options: options)
    }

    /// Opens `url` from the cache when it is fresh or the server says it has not changed (or
    /// cannot be reached); otherwise downloads it into a spool, opened like a stream, and
    /// stores it in the cache once complete.
    ///
    /// To play (`progressive`), a stale entry that has a validator and whose server does not
    /// forbid it (must-revalidate, no-cache) opens at once and is revalidated in the background
    /// (`BackgroundRevalidation`: this run plays the cached copy even if the server has a newer
    /// one, which is stored for the next run and reported at the end). `info` and `dump`
    /// revalidate first: what they print must describe the current version.
    static func openURL(_ url: String, options: DecodeOptions, network: NetworkOptions,
                        progressive: Bool, watch: ((SpoolBuffer) -> Void)? = nil) throws(AnimatedError) -> OpenedInput {
        let cache = network.noCache ? nil : HTTPCache.defaultDirectory().map {
            // One lookup per process: the memory layer would only cost a copy.
            HTTPCache(directory: $0, maxBytes: network.cacheMaxMb << 20, keepsBodiesInMemory: false)
        }
        let hit = network.refresh ? nil : cache?.lookup(url, busy: {
            StandardError.write("animplay: \(url): warning: the cache is locked by another process (stopped or hung?); going on without it\n")
        })
        if let hit, hit.metadata.isFresh(now: time(nil)) {
            return OpenedInput(try AnimationLoader.open(hit.source, options: options), fromCache: true)
        }
        if progressive, let hit, let cache, hit.metadata.hasValidator, !hit.metadata.mustRevalidate {
            let body = try hit.source.duplicate()
            let decoder = try AnimationLoader.open(hit.source, options: options)
            // Held until the first frame is on screen (PlayCommand).
            let revalidation = try BackgroundRevalidation(url: url, metadata: hit.metadata, body: body, cache: cache,
                                                          options: network.downloadOptions, held: true)
            return OpenedInput(decoder, revalidation: revalidation)
        }
        var request = network.downloadOptions
        if let hit {
            request.ifNoneMatch = hit.metadata.etag
            request.ifModifiedSince = hit.metadata.lastModified
        }
        var completed: (@Sendable (HTTPResponse, SpoolBuffer) -> Void)?
        if let cache {
            completed = { response, spool in cache.store(url: url, response: response, spool: spool) }
        }
        let download = try HTTPDownload(url: url, options: request, completed: completed)
        watch?(download.spool)
        switch download.waitForStart() {
        case .failed(let reason, let status):
            if let hit, status == nil {
                StandardError.write("animplay: \(url): warning: server unreachable (\(reason)); playing the cached copy\n")
                return OpenedInput(try AnimationLoader.open(hit.source, options: options), fromCache: true)
            }
            throw .network(reason)
        case .notModified(let response):
            guard let hit else { throw .network("the server answered 304 Not Modified to an unconditional request") }
            cache?.revalidated(hit, response: response)
            return OpenedInput(try AnimationLoader.open(hit.source, options: options), fromCache: true)
        case .body(let response):
            do {
                return OpenedInput(try open(spool: download.spool, options: options, progressive: progressive),
                                   spool: download.spool)
            } catch {
                let end = download.spool.progress
                // A transfer that failed explains a decoding failure better than the decoder.
                if end.finished, let why = end.failure { throw .network(why) }
                if error.kind == .unsupportedFormat {
                    let got = download.spool.progress.count
                    throw .unsupportedFormat("not an image: the server sent \(response.contentType ?? "no Content-Type") (\(got) bytes starting \(preview(download.spool)))")
                }
                if error.kind == .unreadable { throw .network(error.message) }
                throw error
            }
        }
    }

    /// The first printable bytes of a spool, quoted, for "not an image" messages.
    static func preview(_ spool: SpoolBuffer) -> String {
        let head = (try? ByteSource(spool: spool).bytes(at: 0, length: 24)) ?? []
        let text = String(decoding: head.map { (32..<127).contains($0) ? $0 : 0x2E }, as: UTF8.self)
        return "\"\(text)\""
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
