#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC: never jumps with the wall clock).
package enum MonotonicClock {
    package static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
    package static func seconds() -> Double { Double(nanoseconds()) / 1e9 }
}

/// Process resource figures for reports.
package enum ProcessStats {
    /// Peak resident set size of this process, in bytes.
    package static func peakRSSBytes() -> Int {
        var ru = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &ru)
        return Int(ru.ru_maxrss) * 1024
    }
    /// Physical memory of the machine, in bytes.
    package static func physicalMemoryBytes() -> Int {
        Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
    /// Free physical memory, in bytes: glibc's `_SC_AVPHYS_PAGES` is the kernel's MemFree
    /// (`sysinfo` freeram), not MemAvailable, so page cache the kernel would reclaim is not
    /// counted and the figure errs low.
    package static func availableMemoryBytes() -> Int {
        Int(sysconf(Int32(_SC_AVPHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
