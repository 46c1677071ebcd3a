#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small text files of the kernel's: `/proc` and the cgroup's files under `/sys/fs/cgroup`.
package enum KernelFile {
    /// The first 8 KiB of a small text file, nil when it cannot be read (procfs files report
    /// size 0, so it is read until EOF).
    package static func text(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        var used = 0
        while used < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + used, $0.count - used) }
            if n <= 0 { break }
            used += n
        }
        guard used > 0 else { return nil }
        return String(decoding: bytes[..<used], as: UTF8.self)
    }

    /// A file of this process's cgroup v2 (`memory.max`, `memory.current`), at the path
    /// `/proc/self/cgroup` names ("0::/path"; "/" inside a container's own namespace), or nil
    /// (no v2 hierarchy, no such file). v1's hierarchy is not read.
    package static func cgroup(_ name: String) -> String? {
        guard let groups = text("/proc/self/cgroup"),
              let line = groups.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return nil }
        let path = String(line.dropFirst(3))
        guard !path.contains("..") else { return nil }
        return text("/sys/fs/cgroup" + (path == "/" ? "" : path) + "/" + name)
    }

    /// The number a cgroup file holds ("max", or no file: nil).
    package static func cgroupNumber(_ name: String) -> Int? {
        cgroup(name)?.split(separator: "\n").first.flatMap { Int($0) }
    }
}
