import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser

/// Options for inputs that arrive over time: http(s) URLs (limits, timeouts, the cache) and
/// streams (standard input, FIFOs, devices).
struct NetworkOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("URLs: refuse or stop downloads larger than this.", valueName: "MB"))
    var maxDownloadMb: Int = 256

    @Option(parsing: .unconditional, help: ArgumentHelp("Standard input, FIFOs and devices: stop reading after this many MB (what arrived is shown, with a warning).", valueName: "MB"))
    var maxInputMb: Int = 1024

    @Option(parsing: .unconditional, help: ArgumentHelp("URLs: seconds to connect (DNS, TCP, TLS).", valueName: "S"))
    var connectTimeout: Int = 15

    @Option(parsing: .unconditional, help: ArgumentHelp("URLs: give up when less than 1 KiB/s arrives for this many seconds.", valueName: "S"))
    var stallTimeout: Int = 30

    @Option(parsing: .unconditional, help: ArgumentHelp("URLs: give up when the whole download takes longer (0: no limit).", valueName: "S"))
    var maxTime: Int = 600

    @Flag(help: "URLs: neither read nor write the cache.")
    var noCache = false

    @Flag(help: "URLs: download again even if the cache has a copy (and store the new one).")
    var refresh = false

    @Option(parsing: .unconditional, help: ArgumentHelp("URLs: cache size cap; least recently used entries go first.", valueName: "MB"))
    var cacheMaxMb: Int = 512

    @Option(name: .customLong("header"), help: ArgumentHelp("URLs: send this request header (repeatable). Cached apart from other header sets; Authorization and Cookie requests are not cached.", valueName: "'NAME: VALUE'"))
    var headers: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("URLs: the User-Agent to send (cached apart).", valueName: "S"))
    var userAgent: String?

    @Option(help: ArgumentHelp("URLs: the Referer to send (cached apart).", valueName: "URL"))
    var referer: String?

    /// The longest timeout the options take: 1 000 000 s, eleven days.
    static let mostSeconds = 1_000_000

    func validate() throws {
        try checkMegabytes(cacheMaxMb, "--cache-max-mb")
        try checkMegabytes(maxDownloadMb, "--max-download-mb")
        try checkMegabytes(maxInputMb, "--max-input-mb")
        // An upper bound as for every number: huge values overflowed into a trap when made
        // nanoseconds (`--stall-timeout 9223372036854775807`).
        let most = Self.mostSeconds
        guard (1...most).contains(connectTimeout) else { throw ValidationError("--connect-timeout must be 1 to \(most) seconds, got \(connectTimeout)") }
        guard (1...most).contains(stallTimeout) else { throw ValidationError("--stall-timeout must be 1 to \(most) seconds, got \(stallTimeout)") }
        guard (0...most).contains(maxTime) else { throw ValidationError("--max-time must be 0 (no limit) to \(most) seconds, got \(maxTime)") }
        _ = try requestOptions()
    }

    /// --header, --user-agent, --referer, checked. The messages name a header by its name
    /// (escaped, like everything from outside), never by its value: it may be a token.
    func requestOptions() throws(ValidationError) -> RequestOptions {
        var parsed: [HTTPHeader] = []
        for (i, line) in headers.enumerated() {
            guard let h = HTTPHeader(parsing: line) else {
                throw ValidationError("--header must be 'Name: value' (header \(i + 1) has no colon)")
            }
            parsed.append(h)
        }
        let o = RequestOptions(headers: parsed, userAgent: userAgent, referer: referer)
        if let problem = o.problem() { throw ValidationError("request options (--header, --user-agent, --referer): \(problem)") }
        return o
    }

    var downloadOptions: DownloadOptions {
        var o = DownloadOptions()
        o.maxBytes = maxDownloadMb << 20
        o.connectTimeoutSeconds = connectTimeout
        o.stallTimeoutSeconds = stallTimeout
        o.maxTimeSeconds = maxTime
        o.request = (try? requestOptions()) ?? RequestOptions()
        return o
    }
}
