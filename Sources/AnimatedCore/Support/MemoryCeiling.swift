#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The most decoded pixel memory this process should allow itself, whatever limit a user sets:
/// half of the least of physical memory, its address-space and data limits (`ulimit -v`,
/// `ulimit -d`) and its cgroup's `memory.max` (cgroup v2; v1's hierarchy is not read).
///
/// Why: `DecodeLimits.maxDecodedBytes` is the user's to raise, and past what the machine can
/// give, a canvas's allocation fails, which Swift makes fatal ("failed to allocate 14400000000
/// bytes" and a backtrace, for `--max-memory-mb 100000` and a PNG declaring 60000×60000 under
/// an 8 GB `ulimit -v`), or the kernel kills the process. Half: the rest of the process (its
/// libraries, scaled frames, encoders, the frame buffer) needs room too.
public struct MemoryCeiling: Sendable, Equatable {
    /// The ceiling, in bytes.
    public let bytes: Int
    /// What set it, for messages: "physical memory", "the address-space limit (ulimit -v)", …
    public let source: String

    /// This process's ceiling, read once.
    public static let current: MemoryCeiling = {
        #if canImport(Glibc)
        let (space, data) = (limit(of: __rlimit_resource_t(RLIMIT_AS.rawValue)), limit(of: __rlimit_resource_t(RLIMIT_DATA.rawValue)))
        #else
        let (space, data) = (limit(of: RLIMIT_AS), limit(of: RLIMIT_DATA))
        #endif
        let physical = ProcessStats.physicalMemoryBytes()
        return from(physical: physical > 0 ? physical : nil, addressSpace: space, data: data,
                    cgroup: KernelFile.cgroupNumber("memory.max"))
    }()

    /// The ceiling from what bounds the process (nil: no bound of that kind). With no bound
    /// at all, `Int.max`.
    static func from(physical: Int?, addressSpace: Int?, data: Int?, cgroup: Int?) -> MemoryCeiling {
        let bounds: [(Int?, String)] = [(physical, "physical memory"), (addressSpace, "the address-space limit (ulimit -v)"),
                                        (data, "the data-segment limit (ulimit -d)"), (cgroup, "the cgroup's memory.max")]
        guard let least = bounds.compactMap({ b in b.0.map { ($0, b.1) } }).min(by: { $0.0 < $1.0 }) else {
            return MemoryCeiling(bytes: .max, source: "no bound")
        }
        // Whole MiB: messages give sizes in MiB.
        return MemoryCeiling(bytes: ((max(0, least.0) / 2) >> 20) << 20, source: least.1)
    }

    init(bytes: Int, source: String) { self.bytes = bytes; self.source = source }

    #if canImport(Glibc)
    private typealias Resource = __rlimit_resource_t
    #else
    private typealias Resource = Int32
    #endif

    /// A resource limit's soft value, or nil when it is unlimited (or too large for an Int).
    private static func limit(of resource: Resource) -> Int? {
        var r = rlimit()
        guard getrlimit(resource, &r) == 0 else { return nil }
        // RLIM_INFINITY is all ones on Linux (a macro Swift does not import), Int.max on Darwin.
        return r.rlim_cur >= rlim_t(Int.max) ? nil : Int(r.rlim_cur)
    }
}
