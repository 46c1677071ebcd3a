import AnimatedCore
import AnimatedNet
import AnimatedTerminal
import ArgumentParser

/// `animplay cache info|clear`: the download cache.
struct Cache: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or clear the download cache ($XDG_CACHE_HOME/animplay, else ~/.cache/animplay).",
        subcommands: [CacheInfo.self, CacheClear.self]
    )

    static func open() throws(CLIFailure) -> HTTPCache {
        guard let dir = HTTPCache.defaultDirectory() else {
            throw CLIFailure(message: "no cache directory: neither XDG_CACHE_HOME nor HOME is set", code: 2)
        }
        return HTTPCache(directory: dir)
    }
}

struct CacheInfo: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Where the cache is, its entries and size.")

    func run() throws {
        try reportingFailures {
            let cache = try Cache.open()
            let (entries, bytes) = cache.usage()
            StandardOutput.write("""
                directory  \(cache.directory)
                entries    \(entries)
                size       \(bytes) bytes (\(bytes >> 20) MiB; cap \(cache.maxBytes >> 20) MiB, see --cache-max-mb)

                """)
        }
    }
}

struct CacheClear: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every cached download.")

    func run() throws {
        try reportingFailures {
            let removed = try Cache.open().clear()
            StandardOutput.write("removed \(removed) entr\(removed == 1 ? "y" : "ies")\n")
        }
    }
}
