import AnimatedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `URLLoader` fetches a URL: the download's limits and timeouts, and the cache.
public struct URLLoadOptions: Sendable {
    /// Limits, timeouts and headers of the download.
    public var download: DownloadOptions
    /// The cache read and filled (nil: neither).
    public var cache: HTTPCache?
    /// Download again even when the cache has a copy (the new one is stored).
    public var refresh: Bool
    /// Open as soon as the first frame is in (to play), and open a stale cached copy at once
    /// while it is revalidated in the background; otherwise (to describe or dump) revalidate
    /// first and read a download to its end.
    public var progressive: Bool
    /// Gets the warnings that do not stop the load (the cache is locked; the server cannot be
    /// reached, so the cached copy is used).
    public var warn: @Sendable (String) -> Void
    /// Gets the download's spool as soon as the request starts (before the headers), so that
    /// a user interface can show the bytes and rate while waiting for the first frame.
    public var watch: (@Sendable (SpoolBuffer) -> Void)?
    /// Lets another thread stop the load (`LoadCancellation.cancel()`): the download is
    /// aborted and `open` (or the decoder reading the download) fails with "cancelled".
    public var cancellation: LoadCancellation?

    /// Options as the properties above say; by default no cache and no progressive opening.
    public init(download: DownloadOptions = DownloadOptions(), cache: HTTPCache? = nil, refresh: Bool = false,
                progressive: Bool = false, warn: @escaping @Sendable (String) -> Void = { _ in },
                watch: (@Sendable (SpoolBuffer) -> Void)? = nil, cancellation: LoadCancellation? = nil) {
        self.download = download; self.cache = cache; self.refresh = refresh
        self.progressive = progressive; self.warn = warn; self.watch = watch; self.cancellation = cancellation
    }
}

/// A switch another thread flips to stop a load (`URLLoadOptions.cancellation`): a `URLLoader`
/// waiting for the server returns at once with a "cancelled" error, and a download under way
/// is aborted (`HTTPDownload.cancel()`: its connection is closed within about a second).
///
/// Sendable: its state is one `Monitor`; the actions run outside the lock.
public final class LoadCancellation: Sendable {
    private struct State: Sendable {
        var cancelled = false
        var actions: [@Sendable () -> Void] = []
    }
    private let state = Monitor(State())

    /// A cancellation not yet asked for.
    public init() {}

    /// Stops the load (from any thread; later calls do nothing).
    public func cancel() {
        let run = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.cancelled else { return [] }
            s.cancelled = true
            defer { s.actions = [] }
            return s.actions
        }
        for a in run { a() }
    }

    /// Whether `cancel()` was called (any thread).
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Runs `action` on `cancel()`, or now if it was already called.
    func onCancel(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.cancelled { return true }
            s.actions.append(action)
            return false
        }
        if now { action() }
    }
}

/// A URL opened for decoding: the decoder, the download it reads while the bytes still arrive,
/// and the revalidation of a cached copy still running in the background.
public struct OpenedURL {
    /// The animation.
    public var decoder: any AnimationDecoder
    /// The download's spool, when the bytes come from the server (progress, early end).
    public var spool: SpoolBuffer?
    /// The background revalidation of the cached copy being played (held until `release()`).
    public var revalidation: BackgroundRevalidation?
    /// The bytes are a cached copy.
    public var fromCache: Bool
    /// The download `spool` is filled by, while the bytes come from the server.
    package var download: HTTPDownload? = nil

    /// Stops the download the decoder reads, if there is one (a player's owner calls it to stop
    /// a load): the decoder and the player see the input end with "cancelled", and the
    /// connection is closed. A background revalidation is not affected (release it to let it
    /// end). Returns whether the transfer thread ended within `seconds` (true without one).
    @discardableResult
    public func cancel(waitSeconds seconds: Double = 0) -> Bool {
        guard let download else { spool?.cancel(); return true }
        download.cancel()
        return seconds > 0 ? download.waitUntilEnded(seconds: seconds) : true
    }
}

/// The URL policy: cache, conditional requests, background revalidation, fallbacks.
public enum URLLoader {
    /// Whether `name` is an http(s) URL.
    public static func isURL(_ name: String) -> Bool { HTTPDownload.isURL(name) }

    /// Opens `url` from the cache when it is fresh or the server says it has not changed (or
    /// cannot be reached); otherwise downloads it into a spool, opened like a stream, and
    /// stores it in the cache once complete.
    ///
    /// To play (`progressive`), a stale entry that has a validator and whose server does not
    /// forbid it (must-revalidate, no-cache) opens at once and is revalidated in the background
    /// (`BackgroundRevalidation`: this run plays the cached copy even if the server has a newer
    /// one, which is stored for the next run and reported at the end). `info` and `dump`
    /// revalidate first: what they print must describe the current version.
    ///
    /// The request options (`DownloadOptions.request`) are part of the cache key (see
    /// `RequestOptions`); a request carrying credentials neither reads nor fills the cache.
    public static func open(_ url: String, options: DecodeOptions = DecodeOptions(),
                            loading: URLLoadOptions) throws(AnimatedError) -> OpenedURL {
        let url = URLText.requestForm(url)   // as a browser sends it, and as the cache keys it
        if let problem = loading.download.request.problem() { throw .network("request options: \(problem)") }
        let cache = loading.download.request.carriesCredentials ? nil : loading.cache
        let progressive = loading.progressive
        let variant = loading.download.request.cacheVariant
        if loading.cancellation?.isCancelled == true { throw .network(SpoolBuffer.cancelledMessage) }
        let hit = loading.refresh ? nil : cache?.lookup(url, variant: variant, busy: {
            loading.warn("the cache is locked by another process (stopped or hung?); going on without it")
        })
        if let hit, hit.metadata.isFresh(now: time(nil)) {
            return OpenedURL(decoder: try AnimationLoader.open(hit.source, options: options), fromCache: true)
        }
        if progressive, let hit, let cache, hit.metadata.hasValidator, !hit.metadata.mustRevalidate {
            let body = try hit.source.duplicate()
            let decoder = try AnimationLoader.open(hit.source, options: options)
            // Held until the first frame is on screen (the player's user releases it).
            let revalidation = try BackgroundRevalidation(url: url, metadata: hit.metadata, body: body, cache: cache,
                                                          options: loading.download, held: true)
            return OpenedURL(decoder: decoder, revalidation: revalidation, fromCache: true)
        }
        var request = loading.download
        if let hit {
            request.ifNoneMatch = hit.metadata.etag
            request.ifModifiedSince = hit.metadata.lastModified
        }
        var completed: (@Sendable (HTTPResponse, SpoolBuffer) -> Void)?
        if let cache {
            // Only what opens as an image is kept (an error page sent with 200 and a long
            // max-age would otherwise fail every run for that long without asking again).
            completed = { response, spool in
                guard (try? AnimationLoader.open(ByteSource(spool: spool), options: options)) != nil else { return }
                cache.store(url: url, variant: variant, response: response, spool: spool)
            }
        }
        let download = try HTTPDownload(url: url, options: request, completed: completed)
        loading.cancellation?.onCancel { download.cancel() }
        loading.watch?(download.spool)
        switch download.waitForStart() {
        case .failed(let reason, let status):
            if download.spool.progress.cancelled { throw .network(SpoolBuffer.cancelledMessage) }
            if let hit, status == nil {
                loading.warn("server unreachable (\(reason)); playing the cached copy")
                return OpenedURL(decoder: try AnimationLoader.open(hit.source, options: options), fromCache: true)
            }
            throw AnimatedError(.network, reason, httpStatus: status)
        case .notModified(let response):
            guard let hit else { throw .network("the server answered 304 Not Modified to an unconditional request") }
            cache?.revalidated(hit, response: response)
            return OpenedURL(decoder: try AnimationLoader.open(hit.source, options: options), fromCache: true)
        case .body(let response):
            do {
                return OpenedURL(decoder: try AnimationLoader.open(spool: download.spool, options: options,
                                                                   progressive: progressive),
                                 spool: download.spool, fromCache: false, download: download)
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
}
