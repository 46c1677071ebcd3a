#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The frame buffer's default byte budget.
///
/// YYImage's rule, min(20 % of physical RAM, 60 % of available memory), clamped:
/// - floor 4 MiB: a low-memory reading must not starve prefetch; 4 MiB still holds ~100 frames
///   of a 120×40-cell render (38 KB each), seconds of look-ahead.
/// - ceiling 32 MiB: what is cached is frames scaled to the cell grid, which are small, so 32 MiB
///   keeps a whole typical GIF at any common terminal size (870 frames at 120×40 cells, ~170 at
///   300×80) while the process stays far below what a terminal viewer should cost. On any
///   machine with more than ~160 MB of RAM the rule is above the ceiling, so this is the usual
///   default. Animations that do not fit stream through the bounded window instead.
enum MemoryBudget {
    static let floorBytes = 4 << 20
    static let ceilingBytes = 32 << 20

    /// The rule applied to given memory figures (bytes).
    static func bytes(physical: Int, available: Int) -> Int {
        let rule = min(physical / 5, available / 5 * 3)
        return min(ceilingBytes, max(floorBytes, rule))
    }

    /// The rule applied to this machine (and container, if it is limited by a cgroup).
    static func systemDefault() -> Int {
        let physical = ProcessStats.physicalMemoryBytes()
        var available = meminfoAvailable() ?? ProcessStats.availableMemoryBytes()
        if let room = cgroupRoom() { available = min(available, room) }
        return bytes(physical: physical, available: available)
    }

    /// MemAvailable from /proc/meminfo (free memory plus reclaimable cache), in bytes.
    static func meminfoAvailable() -> Int? {
        guard let text = KernelFile.text("/proc/meminfo") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let digits = line.dropFirst("MemAvailable:".count).filter { $0 >= "0" && $0 <= "9" }
            if let kib = Int(digits) { return kib * 1024 }
        }
        return nil
    }

    /// Memory left under a cgroup v2 limit (memory.max − memory.current), if there is one.
    static func cgroupRoom() -> Int? {
        guard let limit = KernelFile.cgroupNumber("memory.max"), limit > 0,
              let current = KernelFile.cgroupNumber("memory.current") else { return nil }
        return max(0, limit - current)
    }
}
