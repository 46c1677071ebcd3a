import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `animplay cache info|clear|remove`: the download cache.
struct Cache: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, clear or prune the download cache ($XDG_CACHE_HOME/animplay, else ~/.cache/animplay).",
        subcommands: [CacheInfo.self, CacheClear.self, CacheRemove.self]
    )

    static func open() throws(CLIFailure) -> HTTPCache {
        guard let dir = HTTPCache.defaultDirectory() else {
            throw CLIFailure(message: "no cache directory: neither XDG_CACHE_HOME nor HOME is set", code: 2)
        }
        let cache = HTTPCache(directory: dir)
        if let problem = cache.problem() { throw CLIFailure(message: "\(problem); not touching it", code: 2) }
        return cache
    }

    /// The one line when another process has held the lock past the budget.
    static func locked(_ cache: HTTPCache) -> CLIFailure {
        let who = cache.lockHolder().map { "process \($0)" } ?? "another process"
        return CLIFailure(message: "the cache is locked by \(who) for more than \(Int(HTTPCache.lockBudgetSeconds)) s (stopped or hung?); try again once it ends", code: 1)
    }
}

struct CacheInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Where the cache is, its size, and each entry: URL, size, age, fresh or stale, last used.")

    func run() throws {
        try reportingFailures {
            let cache = try Cache.open()
            guard let u = cache.usage() else { throw Cache.locked(cache) }
            var out = """
                directory  \(cache.directory)
                entries    \(u.entries.count)
                size       \(u.bytes) bytes (\(u.bytes >> 20) MiB; cap \(cache.maxBytes >> 20) MiB, see --cache-max-mb)

                """
            if u.removedParts > 0 {
                out += "removed    \(u.removedParts) partial download\(u.removedParts == 1 ? "" : "s") of interrupted runs (\(u.removedPartBytes) bytes)\n"
            }
            if u.activeParts > 0 { out += "storing    \(u.activeParts) download\(u.activeParts == 1 ? "" : "s") in progress\n" }
            if u.removedDamaged > 0 { out += "removed    \(u.removedDamaged) unreadable entr\(u.removedDamaged == 1 ? "y" : "ies")\n" }
            if !u.entries.isEmpty {
                let now = time(nil)
                out += "\n" + "size".leftPadded(10) + "  " + "age".leftPadded(6) + "  state  " + "used".leftPadded(6) + "  url\n"
                for e in u.entries {
                    out += "\(e.bytes)".leftPadded(10) + "  " + Self.duration(e.age).leftPadded(6) + "  "
                        + (e.fresh ? "fresh" : "stale") + "  " + Self.duration(max(0, now - e.lastUsed)).leftPadded(6) + "  " + e.url
                        + (e.requestHeaders.isEmpty ? "" : "  (with " + e.requestHeaders.joined(separator: ", ") + ")") + "\n"
                }
            }
            StandardOutput.write(out)
        }
    }

    /// "42s", "7m", "3h", "12d".
    static func duration(_ s: Int) -> String {
        if s < 120 { return "\(s)s" }
        if s < 7200 { return "\(s / 60)m" }
        if s < 172_800 { return "\(s / 3600)h" }
        return "\(s / 86400)d"
    }
}

struct CacheClear: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every cached download.")

    func run() throws {
        try reportingFailures {
            let cache = try Cache.open()
            guard let removed = cache.clear() else { throw Cache.locked(cache) }
            StandardOutput.write("removed \(removed) entr\(removed == 1 ? "y" : "ies")\n")
        }
    }
}

struct CacheRemove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove the cached copy of one URL.")

    @Argument(help: "The URL, as given when it was played (a password in it may be given or left as ***).")
    var url: String

    func run() throws {
        try reportingFailures {
            let cache = try Cache.open()
            guard let removed = cache.remove(URLText.requestForm(url)) else { throw Cache.locked(cache) }
            guard removed else { throw CLIFailure(file: url, message: "not in the cache", code: 1) }
            StandardOutput.write("removed \(URLText.masked(url))\n")
        }
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
