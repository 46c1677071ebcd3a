import AnimatedCore

/// How a revalidation in the background turned out (so far).
public enum RevalidationState: Sendable, Equatable {
    /// No answer yet.
    case pending
    /// 304: the cached copy is current; its entry now holds the new headers and time.
    case notModified
    /// The server sends a different body, which is still arriving.
    case newVersionArriving
    /// The different body arrived whole and replaced the entry: the next run plays it.
    case newVersionStored
    /// The different body arrived whole but was not kept (the server says no-store, or it is
    /// larger than the cache): the entry is gone, the next run downloads again.
    case newVersionNotCached
    /// The server could not be reached: the entry is left as it was.
    case unreachable(String)
    /// An HTTP error status, or a new body that did not arrive whole or is not an image: the
    /// entry is left as it was (the next run asks again).
    case failed(String)

    /// Nothing more will happen.
    public var isFinal: Bool {
        switch self {
        case .pending, .newVersionArriving: return false
        default: return true
        }
    }
}

/// Revalidates a stale cache entry on a thread of its own while its cached copy is already
/// playing, so that a cache hit costs neither libcurl's loading nor a round trip before the
/// first frame (stale-while-revalidate, chosen by the client as RFC 9111 §4.2.4 allows; entries
/// whose server forbids it, `CacheMetadata.mustRevalidate`, are not handed here).
///
/// A 304 rewrites the entry with the new headers. A new body is downloaded and stored in full
/// for the next run, while this run keeps playing the copy it started with: switching pictures
/// in the middle of a play would be more surprising than one line saying a newer version was
/// stored. A failure leaves the entry untouched.
///
/// Sendable: its only state is the `Monitor`; the thread owns the request, the download and
/// the body reader it was given.
public final class BackgroundRevalidation: Sendable {
    /// The URL being revalidated.
    public let url: String
    private let state: Monitor<RevalidationState>

    /// Whether the thread may ask: held until `proceed()`, or called off by `deinit`.
    private enum Go: Sendable { case held, proceed, calledOff }
    private let go: Monitor<Go>

    /// Starts revalidating `url`'s entry (`metadata`, whose body `body` reads: it becomes the
    /// thread's) with its validators, sending `options.request` (the same request options as
    /// the request that stored it: they are part of its key, `metadata.variant`). `held`: the thread waits for `proceed()` before it loads
    /// libcurl and asks (a player calls it once its first frame is on screen, so that neither
    /// competes with that frame for the CPU; a player that never shows one never asks).
    package init(url: String, metadata: CacheMetadata, body: sending ByteSource, cache: HTTPCache,
                options: DownloadOptions, held: Bool = false) throws(AnimatedError) {
        self.url = url
        let state = Monitor<RevalidationState>(.pending)
        let go = Monitor<Go>(held ? .held : .proceed)
        self.state = state
        self.go = go
        var request = options
        request.ifNoneMatch = metadata.etag
        request.ifModifiedSince = metadata.lastModified
        try DetachedThread.start("revalidation") {
            let decision = go.wait { g -> MonitorStep<Go> in g == .held ? .sleep(notify: false) : .done(g) }
            guard decision == .proceed else { return }
            Self.run(url: url, metadata: metadata, body: body, cache: cache, request: request, state: state)
        }
    }

    /// Lets a held revalidation go (see `init`); later calls do nothing.
    public func proceed() {
        go.withLock { if $0 == .held { $0 = .proceed } }
        go.broadcast()
    }

    /// Whether `proceed()` was called (or it was never held).
    public var proceeded: Bool { go.withLock { $0 == .proceed } }

    /// A held revalidation nobody let go ends with its owner (its thread returns at once); one
    /// under way finishes on its own (the entry is rewritten atomically either way).
    deinit {
        go.withLock { if $0 == .held { $0 = .calledOff } }
        go.broadcast()
    }

    /// What is known now.
    public var current: RevalidationState { state.withLock { $0 } }

    /// Waits until the outcome is final (or, with `answerOnly`, until the server has answered:
    /// a new body may still be arriving) or `seconds` have passed; returns what is known then.
    public func wait(seconds: Double, answerOnly: Bool = false) -> RevalidationState {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, seconds) * 1e9)
        return state.wait(deadline: deadline) { s -> MonitorStep<RevalidationState> in
            s.isFinal || (answerOnly && s != .pending) ? .done(s) : .sleep(notify: false)
        } ?? current
    }

    private static func run(url: String, metadata: CacheMetadata, body: ByteSource, cache: HTTPCache,
                            request: DownloadOptions, state: Monitor<RevalidationState>) {
        let set = { (s: RevalidationState) in
            state.withLock { $0 = s }
            state.broadcast()
        }
        let stored = Monitor(false)
        let download: HTTPDownload
        do {
            download = try HTTPDownload(url: url, options: request) { response, spool in
                // Only an image replaces the entry that plays (an error page sent with 200 does not).
                guard isImage(spool) else { return }
                let ok = cache.store(url: url, variant: metadata.variant, response: response, spool: spool)
                stored.withLock { $0 = ok }
            }
        } catch {
            set(.failed(error.message)); return
        }
        switch download.waitForStart() {
        case .notModified(let response):
            cache.revalidated(metadata, body: body, response: response)
            set(.notModified)
        case .failed(let reason, let status):
            set(status == nil ? .unreachable(reason) : .failed(reason))
        case .body(let response):
            set(.newVersionArriving)
            let end = download.spool.waitUntilFinished()
            if let failure = end.failure {
                set(.failed("the newer version did not arrive whole (\(failure))"))
            } else if !isImage(download.spool) {
                set(.failed("the server now sends \(response.contentType ?? "no Content-Type"), not an image"))
            } else {
                set(stored.withLock { $0 } ? .newVersionStored : .newVersionNotCached)
            }
        }
    }

    private static func isImage(_ spool: SpoolBuffer) -> Bool {
        AnimationLoader.recognizes((try? ByteSource(spool: spool).bytes(at: 0, length: CoderRegistry.headLength)) ?? [])
    }
}
