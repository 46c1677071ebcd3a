import CFileGuard
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cache's folder and its two subfolders (`entries`, `tmp`) opened as directory
/// descriptors, after checking that they are safe to trust: owned by this user and writable
/// by nobody else (or anyone who can write there could plant an entry that plays without
/// asking the server, or a link that makes a cleanup delete files elsewhere).
///
/// Every file below is then reached relative to these descriptors with `O_NOFOLLOW` (and
/// removed with `unlinkat`, which removes a link itself, never its target): a link planted
/// inside is refused, never followed. Missing folders are created 0700 (the XDG rule).
///
/// Not Sendable: one operation opens it, uses it and closes it (`deinit`).
final class CacheFolder {
    let root: Int32, entries: Int32, temporary: Int32

    private init(root: Int32, entries: Int32, temporary: Int32) {
        self.root = root; self.entries = entries; self.temporary = temporary
    }

    deinit { close(root); close(entries); close(temporary) }

    /// Opens (creating if needed) the folder at `path`; the reason it cannot be used otherwise.
    static func open(_ path: String, create: Bool = true) -> Result<CacheFolder, CacheFolderProblem> {
        if create { makeParents(path) }
        let root = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return .failure(.cannotOpen(path, errno)) }
        if let p = check(root, path) { close(root); return .failure(p) }
        var subs: [Int32] = []
        for name in ["entries", "tmp"] {
            if create && mkdirat(root, name, 0o700) != 0 && errno != EEXIST {
                let e = errno; subs.forEach { close($0) }; close(root); return .failure(.cannotOpen(path + "/" + name, e))
            }
            let fd = animplay_openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)
            guard fd >= 0 else {
                let e = errno; subs.forEach { close($0) }; close(root)
                return .failure(e == ELOOP || e == ENOTDIR ? .notAFolder(path + "/" + name) : .cannotOpen(path + "/" + name, e))
            }
            subs.append(fd)
            if let p = check(fd, path + "/" + name) { subs.forEach { close($0) }; close(root); return .failure(p) }
        }
        // The lock must be a plain file of ours (a link there would make opening it create its target).
        var st = stat()
        if fstatat(root, "lock", &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) != S_IFREG || st.st_uid != geteuid() {
            subs.forEach { close($0) }; close(root)
            return .failure(.unsafeLock(path + "/lock"))
        }
        return .success(CacheFolder(root: root, entries: subs[0], temporary: subs[1]))
    }

    /// Why a folder is not trusted: not ours, or writable by group or others.
    private static func check(_ fd: Int32, _ path: String) -> CacheFolderProblem? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .cannotOpen(path, errno) }
        if st.st_uid != geteuid() { return .notOwned(path, owner: Int(st.st_uid)) }
        if st.st_mode & 0o022 != 0 { return .writableByOthers(path, mode: Int(st.st_mode & 0o7777)) }
        return nil
    }

    /// Creates the missing folders of `path`, 0700 each.
    private static func makeParents(_ path: String) {
        var st = stat()
        if stat(path, &st) == 0 { return }
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            _ = mkdir(prefix, 0o700)
        }
    }

    /// Opens `name` in `dir` without following a link; nil unless it is a regular file.
    func openFile(_ dir: Int32, _ name: String, flags: Int32 = O_RDONLY) -> Int32? {
        let fd = animplay_openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { close(fd); return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// The lock file, created 0600 (never through a link).
    func openLock() -> Int32? {
        let fd = animplay_openat(root, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        return fd >= 0 ? fd : nil
    }

    struct Listed { var name: String; var size: Int; var modified: Int; var isFile: Bool }

    /// The names in `dir` with their size and modification time (nanoseconds), links and
    /// other non-files marked (`isFile` false).
    func list(_ dir: Int32) -> [Listed] {
        let copy = fcntl(dir, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, let d = fdopendir(copy) else { return [] }
        defer { closedir(d) }
        rewinddir(d)
        var out: [Listed] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            var st = stat()
            guard fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            out.append(Listed(name: name, size: Int(st.st_size),
                              modified: Self.nanoseconds(st.st_mtim),
                              isFile: (st.st_mode & S_IFMT) == S_IFREG))
        }
        return out
    }

    /// A file time in nanoseconds since the epoch, clamped to what an Int holds (the years
    /// 1678 to 2262): a file may carry any time (a restored backup, `touch -d 2300-01-01`),
    /// and the plain product overflowed into a trap that `cache info` and every download hit.
    static func nanoseconds(_ t: timespec) -> Int {
        let limit = Int.max / 1_000_000_000 - 1
        return min(max(Int(t.tv_sec), -limit), limit) * 1_000_000_000 + Int(t.tv_nsec)
    }

    /// Removes `name` from `dir` (a link is removed itself; a folder is left).
    @discardableResult
    func remove(_ dir: Int32, _ name: String) -> Bool { unlinkat(dir, name, 0) == 0 }
}

/// Why the cache folder is not used (one warning, then the run goes on without the cache).
package enum CacheFolderProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpen(String, Int32)
    case notAFolder(String)
    case notOwned(String, owner: Int)
    case writableByOthers(String, mode: Int)
    case unsafeLock(String)

    package var description: String {
        switch self {
        case .cannotOpen(let p, let e): return "cannot open the cache folder \(p) (\(String(cString: strerror(e))))"
        case .notAFolder(let p): return "the cache folder \(p) is a link or not a folder"
        case .notOwned(let p, let owner): return "the cache folder \(p) belongs to user id \(owner), not to you"
        case .writableByOthers(let p, let mode):
            return "the cache folder \(p) can be written by others (mode \(String(mode, radix: 8)))"
        case .unsafeLock(let p): return "\(p) is not a plain file of yours"
        }
    }
}
