import AnimatedCore
@testable import AnimatedNet
import Testing

/// `DownloadOptions` is public: every Int a library user sets is a time or a rate, never a
/// trap. Seconds were made nanoseconds by plain multiplication, so `stallTimeoutSeconds =
/// .max` (or the command line's `--stall-timeout 9223372036854775807`) trapped in the first
/// progress callback, and a negative one in its conversion to an unsigned number.
@Suite struct DownloadOptionsTests {
    @Test(arguments: [Int.max, Int.max / 1_000_000_000 + 1, -1, Int.min])
    func extremeTimesEndInTheNetworksOwnFailure(_ value: Int) throws {
        var options = DownloadOptions()
        options.stallTimeoutSeconds = value
        options.maxTimeSeconds = value
        options.stallBytesPerSecond = value == Int.min ? Int.min : Int.max
        // Port 1 on loopback refuses at once: libcurl calls the progress callback, which
        // checks the stall and total-time rules, then reports the refusal.
        let download = try HTTPDownload(url: "http://127.0.0.1:1/x.gif", options: options)
        guard case .failed(let why, let status) = download.waitForStart() else {
            Issue.record("a refused connection did not fail")
            return
        }
        #expect(why.hasPrefix("connection refused") && status == nil)
        #expect(download.waitUntilEnded(seconds: 10))
    }

    @Test func nanosecondsSaturate() {
        #expect(DownloadOptions.nanoseconds(3) == 3_000_000_000)
        #expect(DownloadOptions.nanoseconds(0) == 0 && DownloadOptions.nanoseconds(-7) == 0)
        #expect(DownloadOptions.nanoseconds(.max) == .max)
    }
}
