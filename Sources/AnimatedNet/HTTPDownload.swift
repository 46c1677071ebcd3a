import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

extension DownloadOptions {
    /// `seconds` of these options in nanoseconds, 0 for none or less, saturated at
    /// `UInt64.max` (a library user may set any Int).
    static func nanoseconds(_ seconds: Int) -> UInt64 {
        let (ns, over) = UInt64(max(0, seconds)).multipliedReportingOverflow(by: 1_000_000_000)
        return over ? .max : ns
    }
}

/// How a download behaves: limits, timeouts, conditional request headers.
public struct DownloadOptions: Sendable {
    /// Refused when Content-Length says more, and stopped when the body grows past it.
    public var maxBytes = 256 << 20
    /// Time to establish the connection (DNS, TCP, TLS).
    public var connectTimeoutSeconds = 15
    /// A transfer that receives less than `stallBytesPerSecond` on average over this many
    /// seconds (nothing useful: a trickle counts as a stall) is abandoned (0 or less: never).
    public var stallTimeoutSeconds = 30
    /// The least average rate that is not a stall (see `stallTimeoutSeconds`).
    public var stallBytesPerSecond = 1024
    /// The whole transfer, connection included, is abandoned after this many seconds (0: no limit).
    public var maxTimeSeconds = 600
    /// Redirects followed before the download fails.
    public var maxRedirects = 8
    /// Sent unless `request.userAgent` (or a User-Agent header) replaces it. Not part of a
    /// cache key: set `request.userAgent` for a User-Agent that changes the answer.
    public var userAgent = "animplay/1 (terminal animation player; libcurl)"
    /// The user's headers, User-Agent and Referer (also sent when a cached copy is revalidated).
    public var request = RequestOptions()
    /// Revalidation of a cached copy.
    package var ifNoneMatch: String?
    package var ifModifiedSince: String?
    /// The defaults above.
    public init() {}
}

/// The response headers a player and a cache care about.
package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    package var reason: String
    /// The URL after redirects.
    package var url: String
    package var etag: String?
    package var lastModified: String?
    package var cacheControl: String?
    package var contentType: String?
    /// Content-Length of the body on the wire (compressed, if it was), when announced.
    package var contentLength: Int?
    package var contentEncoding: String?
    /// For freshness (RFC 9111 §4.2): when the response was generated, until when it is fresh
    /// (absent a max-age), how long it has already spent in caches on the way, and which
    /// request headers select it.
    package var date: String? = nil
    package var expires: String? = nil
    package var age: Int? = nil
    package var vary: String? = nil
}

/// What a download came to before its body started.
package enum DownloadStart: Sendable {
    /// A 2xx response whose body is being written to the spool (which may still end early).
    case body(HTTPResponse)
    /// 304 Not Modified to a conditional request: no body.
    case notModified(HTTPResponse)
    /// Nothing to show: the one-line reason (HTTP status, DNS, refused, timeout, TLS, size),
    /// and the HTTP status when the server answered (nil: it could not be reached).
    case failed(String, httpStatus: Int?)
}

/// One HTTP(S) GET through libcurl on a thread of its own, feeding a `SpoolBuffer` as the body
/// arrives, so that decoders can start on the first frames.
///
/// Only http and https, also after redirects (bounded); compressed bodies are decoded; proxies
/// come from the usual environment variables (libcurl reads them); TLS peers are always
/// verified; connect and stall timeouts; a size cap checked against Content-Length and while
/// streaming.
///
/// `cancel()` stops it from any thread: libcurl checks between reads and at least once a
/// second while nothing arrives (its progress callback), closes the connection, and the spool
/// ends with `SpoolBuffer.cancelledMessage`.
package final class HTTPDownload: Sendable {
    package let url: String
    package let spool: SpoolBuffer
    private let start: Monitor<DownloadStart?>
    private let finished: Monitor<Bool>

    /// Starts downloading `url`. `completed` runs on the transfer's thread once the whole body
    /// of a 2xx response is in, before the spool is finished (a cache stores it there, so that
    /// whoever waits for the end finds the entry written).
    package init(url: String, options: DownloadOptions, memoryCap: Int = 4 << 20,
                completed: (@Sendable (HTTPResponse, SpoolBuffer) -> Void)? = nil) throws(AnimatedError) {
        self.url = url
        spool = SpoolBuffer(name: URLText.masked(url), memoryCap: memoryCap)
        start = Monitor(nil)
        finished = Monitor(false)
        if let problem = options.request.problem() { throw .network("request options: \(problem)") }
        guard curlReady else { throw .network("libcurl (libcurl.so.4, Debian package libcurl4) is not installed or failed to initialise") }
        let transfer = Transfer(url: url, options: options, spool: spool, start: start)
        transfer.completed = completed
        let finished = finished
        // The transfer belongs to its thread from here on.
        try DetachedThread.start("download") {
            transfer.run()
            finished.withLock { $0 = true }
            finished.broadcast()
        }
    }

    /// Stops the transfer (from any thread; later calls do nothing): readers of the spool see it
    /// end with `SpoolBuffer.cancelledMessage` at once, `waitForStart` returns `.failed` if it
    /// had not returned yet, and the transfer thread closes the connection and ends within
    /// about a second (`waitUntilEnded`). A download that already ended is left as it was.
    package func cancel() {
        spool.cancel()
        start.withLock { if $0 == nil { $0 = .failed(SpoolBuffer.cancelledMessage, httpStatus: nil) } }
        start.broadcast()
    }

    /// Waits until the transfer thread has ended (its connection closed, its callbacks done), or
    /// `seconds` passed; whether it ended.
    @discardableResult
    package func waitUntilEnded(seconds: Double) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, seconds) * 1e9)
        return finished.wait(deadline: deadline) { f -> MonitorStep<Bool> in f ? .done(true) : .sleep(notify: false) } ?? false
    }

    /// Waits until the response is known: a body coming, 304, or a failure.
    package func waitForStart() -> DownloadStart {
        start.wait { s -> MonitorStep<DownloadStart> in s.map { .done($0) } ?? .sleep(notify: false) }!
    }

    /// True for the URLs this class takes (http and https, any case).
    package static func isURL(_ s: String) -> Bool {
        let l = s.lowercased()
        return l.hasPrefix("http://") || l.hasPrefix("https://")
    }
}

/// libcurl's global initialisation (and loading: see Sources/CCurl/shim.h), once per process,
/// before the first handle.
private let curlReady: Bool = animplay_curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

/// The transfer thread's state. Owned by that thread alone; curl's callbacks reach it through
/// their user pointer.
private final class Transfer {
    let url: String
    let options: DownloadOptions
    let spool: SpoolBuffer
    let start: Monitor<DownloadStart?>
    var handle: UnsafeMutableRawPointer?
    var headers: [String: String] = [:]
    var reason = ""
    var response: HTTPResponse?
    var failure: String?            // why the body was refused (status, size)
    var received = 0
    var completed: (@Sendable (HTTPResponse, SpoolBuffer) -> Void)?
    var failedStatus: Int?          // the HTTP status that was refused
    // The low-speed rule (see `progress`): bytes and time at the start of the current window.
    var windowBytes: Int64 = 0
    var windowStart: UInt64 = 0
    var transferStart: UInt64 = 0
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(url: String, options: DownloadOptions, spool: SpoolBuffer, start: Monitor<DownloadStart?>) {
        self.url = url; self.options = options; self.spool = spool; self.start = start
        errorBuffer[0] = 0
    }

    deinit { errorBuffer.deallocate() }

    private func announce(_ s: DownloadStart) {
        start.withLock { if $0 == nil { $0 = s } }
        start.broadcast()
    }

    func run() {
        guard let h = animplay_curl_easy_init() else {
            announce(.failed("libcurl could not create a transfer", httpStatus: nil))
            spool.finish(failure: "libcurl could not create a transfer")
            return
        }
        handle = h
        defer { animplay_curl_easy_cleanup(h) }
        var list: UnsafeMutablePointer<curl_slist>?
        if let tag = options.ifNoneMatch { list = animplay_curl_slist_append(list, "If-None-Match: \(tag)") }
        if let date = options.ifModifiedSince { list = animplay_curl_slist_append(list, "If-Modified-Since: \(date)") }
        for line in options.request.curlLines { list = animplay_curl_slist_append(list, line) }
        defer { animplay_curl_slist_free_all(list) }

        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = animplay_curl_set_string(h, CURLOPT_URL, url)
        // Never another scheme, also after a redirect (libcurl speaks ftp, file, smb, ...):
        // a libcurl that cannot be told so is not used.
        guard animplay_curl_restrict_protocols(h) == CURLE_OK else {
            let why = "this libcurl cannot be limited to http and https; not downloading"
            announce(.failed(why, httpStatus: nil))
            spool.finish(failure: why)
            return
        }
        _ = animplay_curl_set_long(h, CURLOPT_FOLLOWLOCATION, 1)
        _ = animplay_curl_set_long(h, CURLOPT_MAXREDIRS, options.maxRedirects)
        _ = animplay_curl_set_string(h, CURLOPT_ACCEPT_ENCODING, "")        // all libcurl decodes
        _ = animplay_curl_set_string(h, CURLOPT_USERAGENT, options.request.userAgent ?? options.userAgent)
        // Not CURLOPT_AUTOREFERER: a redirect keeps the Referer the user chose.
        if let referer = options.request.referer { _ = animplay_curl_set_string(h, CURLOPT_REFERER, referer) }
        _ = animplay_curl_set_long(h, CURLOPT_SSL_VERIFYPEER, 1)
        _ = animplay_curl_set_long(h, CURLOPT_SSL_VERIFYHOST, 2)
        _ = animplay_curl_set_long(h, CURLOPT_CONNECTTIMEOUT, options.connectTimeoutSeconds)
        // The stall and total-time rules are checked in the progress callback (libcurl's own
        // low-speed check averages over a few extra seconds: a 1 s limit took 7 s).
        transferStart = MonotonicClock.nanoseconds(); windowStart = transferStart
        _ = animplay_curl_set_long(h, CURLOPT_NOPROGRESS, 0)
        _ = animplay_curl_set_pointer(h, CURLOPT_XFERINFODATA, me)
        _ = animplay_curl_set_xferinfo_cb(h) { user, _, now, _, _ in
            let t = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            return t.progress(received: Int64(now)) ? 0 : 1
        }
        _ = animplay_curl_set_off(h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxBytes))
        _ = animplay_curl_set_long(h, CURLOPT_NOSIGNAL, 1)      // threads: no SIGALRM for DNS
        _ = animplay_curl_set_pointer(h, CURLOPT_ERRORBUFFER, errorBuffer)
        if let list { _ = animplay_curl_set_slist(h, CURLOPT_HTTPHEADER, list) }
        _ = animplay_curl_set_pointer(h, CURLOPT_HEADERDATA, me)
        _ = animplay_curl_set_data_cb(h, CURLOPT_HEADERFUNCTION) { ptr, size, n, user in
            let t = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            t.header(UnsafeRawBufferPointer(start: ptr, count: size * n))
            return size * n
        }
        _ = animplay_curl_set_pointer(h, CURLOPT_WRITEDATA, me)
        _ = animplay_curl_set_data_cb(h, CURLOPT_WRITEFUNCTION) { ptr, size, n, user in
            let t = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            return t.body(UnsafeRawBufferPointer(start: ptr, count: size * n)) ? size * n : 0
        }

        // Cancelled before the thread got here: no connection at all.
        let rc = spool.progress.cancelled ? CURLE_ABORTED_BY_CALLBACK : animplay_curl_easy_perform(h)
        if spool.progress.cancelled { failure = SpoolBuffer.cancelledMessage }
        let status = animplay_curl_info_long(h, CURLINFO_RESPONSE_CODE)
        if response == nil && failure == nil && rc == CURLE_OK {
            // No body was written: an empty 2xx, a 304, or an error status without a body.
            let r = makeResponse(status: status)
            if status == 304 {
                announce(.notModified(r)); spool.finish(); return
            }
            if !(200..<300).contains(status) {
                failure = Self.describe(status: status, reason: reason); failedStatus = status
            } else {
                response = r; announce(.body(r))
            }
        }
        let message: String? = failure ?? (rc == CURLE_OK ? nil : describe(rc))
        if received == 0, let message {
            announce(.failed(message, httpStatus: failedStatus))
        }
        if message == nil, let response, let completed { completed(response, spool) }
        spool.finish(failure: message, fatal: rc == CURLE_FILESIZE_EXCEEDED || received > options.maxBytes)
    }

    private func makeResponse(status: Int) -> HTTPResponse {
        let effective = animplay_curl_info_string(handle, CURLINFO_EFFECTIVE_URL).map { String(cString: $0) } ?? url
        return HTTPResponse(status: status, reason: reason, url: effective, etag: headers["etag"],
                            lastModified: headers["last-modified"], cacheControl: headers["cache-control"],
                            contentType: headers["content-type"], contentLength: headers["content-length"].flatMap { Int($0) },
                            contentEncoding: headers["content-encoding"], date: headers["date"],
                            expires: headers["expires"], age: headers["age"].flatMap { CacheMetadata.deltaSeconds($0) }, vary: headers["vary"])
    }

    /// The low-speed and total-time rules, at least once a second: false aborts the transfer
    /// with the reason in `failure`. A window of `stallTimeoutSeconds` must bring
    /// `stallBytesPerSecond` times as many bytes; each window that does starts the next.
    func progress(received now: Int64) -> Bool {
        guard failure == nil else { return false }
        if spool.progress.cancelled { failure = SpoolBuffer.cancelledMessage; return false }
        let t = MonotonicClock.nanoseconds()
        // Saturated: any Int the options hold is a time, never an overflow (a trap).
        let window = DownloadOptions.nanoseconds(options.stallTimeoutSeconds)
        let (needed, over) = Int64(max(0, options.stallBytesPerSecond))
            .multipliedReportingOverflow(by: Int64(max(0, options.stallTimeoutSeconds)))
        if options.stallTimeoutSeconds <= 0 || now - windowBytes >= (over ? Int64.max : needed) {
            windowBytes = now; windowStart = t
        } else if t - windowStart >= window {
            let got = now - windowBytes
            failure = got == 0 && response == nil
                ? "no answer for \(options.stallTimeoutSeconds) s (see --stall-timeout)"
                : "stalled: \(got) bytes in \(options.stallTimeoutSeconds) s, under \(options.stallBytesPerSecond / 1024) KiB/s (see --stall-timeout)"
            return false
        }
        if options.maxTimeSeconds > 0, t - transferStart >= DownloadOptions.nanoseconds(options.maxTimeSeconds) {
            failure = "not finished after \(options.maxTimeSeconds) s (see --max-time)"
            return false
        }
        return true
    }

    /// One header line; a status line starts a new response (after a redirect or a 100).
    private func header(_ line: UnsafeRawBufferPointer) {
        var text = String(decoding: line, as: UTF8.self)
        while let last = text.last, last.isNewline { text.removeLast() }
        if text.hasPrefix("HTTP/") {
            headers = [:]
            let parts = text.split(separator: " ", maxSplits: 2)
            reason = parts.count > 2 ? String(parts[2]) : ""
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        let name = text[..<colon].lowercased()
        let value = text[text.index(after: colon)...].trimmingSpaces()
        // Lists may come in several lines (RFC 9110 §5.3).
        if let before = headers[name], name == "cache-control" || name == "vary" {
            headers[name] = before + ", " + value
        } else {
            headers[name] = value
        }
    }

    /// Body bytes. False stops the transfer (an error status, too large, spool failure).
    private func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if spool.progress.cancelled { failure = SpoolBuffer.cancelledMessage; return false }
        if response == nil {
            let status = animplay_curl_info_long(handle, CURLINFO_RESPONSE_CODE)
            let r = makeResponse(status: status)
            guard (200..<300).contains(status) else {
                failure = Self.describe(status: status, reason: reason); failedStatus = status; return false
            }
            if let length = r.contentLength, length > options.maxBytes {
                failure = tooLarge(length, announced: true); failedStatus = status; return false
            }
            response = r
            // Progress in percent only when the body is not compressed (Content-Length counts
            // the bytes on the wire).
            if r.contentEncoding == nil || r.contentEncoding == "identity" { spool.setExpected(r.contentLength) }
            announce(.body(r))
        }
        received += bytes.count
        if received > options.maxBytes { failure = tooLarge(received, announced: false); return false }
        do { try spool.append(bytes) } catch { failure = error.description; return false }
        return true
    }

    private func tooLarge(_ n: Int, announced: Bool) -> String {
        let mb = (options.maxBytes + (1 << 20) - 1) >> 20
        return announced
            ? "too large: the server announces \(Self.mb(n)) (limit \(mb) MB, see --max-download-mb)"
            : "too large: more than \(mb) MB received (see --max-download-mb)"
    }

    static func mb(_ n: Int) -> String {
        let v = Double(n) / 1_048_576
        return v >= 10 ? "\(Int(v.rounded())) MB" : "\(Double(Int(v * 10)) / 10) MB"
    }

    static func describe(status: Int, reason: String) -> String {
        "HTTP \(status)\(reason.isEmpty ? "" : " " + reason)"
    }

    /// One line for a libcurl failure.
    private func describe(_ rc: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        let curl = detail.isEmpty ? String(cString: animplay_curl_easy_strerror(rc)) : detail
        switch rc {
        case CURLE_COULDNT_RESOLVE_HOST: return "cannot resolve the host name (\(curl))"
        case CURLE_COULDNT_RESOLVE_PROXY: return "cannot resolve the proxy (\(curl))"
        case CURLE_COULDNT_CONNECT: return "connection refused or unreachable (\(curl))"
        case CURLE_OPERATION_TIMEDOUT:
            return received == 0 && response == nil
                ? "timed out (\(curl))"
                : "stalled: nothing received for \(options.stallTimeoutSeconds) s (\(curl))"
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return "TLS failure: \(curl)"
        case CURLE_UNSUPPORTED_PROTOCOL:
            return "only http and https URLs are allowed, also after redirects (\(curl))"
        case CURLE_TOO_MANY_REDIRECTS: return "too many redirects (more than \(options.maxRedirects))"
        case CURLE_FILESIZE_EXCEEDED:
            if let n = headers["content-length"].flatMap({ Int($0) }), n > options.maxBytes { return tooLarge(n, announced: true) }
            return tooLarge(options.maxBytes + 1, announced: false)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR:
            return "connection dropped (\(curl))"
        case CURLE_URL_MALFORMAT: return "malformed URL (\(curl))"
        default: return curl
        }
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
