#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The images of a folder, for a frame sequence: regular files (hidden ones excepted) whose
/// first bytes some registered coder recognises (`CoderRegistry`), in natural order. Other files are skipped.
package enum ImageFolder {
    package struct Listing: Sendable, Equatable {
        /// Paths (folder + "/" + name), naturally sorted.
        package var files: [String]
        /// Regular files that no coder recognises.
        package var skipped: Int
        /// Subfolders (not searched: a sequence is one folder's images).
        package var subfolders: Int = 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    package static func list(_ folder: String, maxFiles: Int = DecodeLimits.default.maxFrames,
                             coders: CoderRegistry = .shared) throws(AnimatedError) -> Listing {
        guard let dir = opendir(folder) else { throw .posix(.unreadable, errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if name.hasPrefix(".") { continue }
            names.append(name)
            guard names.count <= maxFiles * 2 + 1024 else {
                throw .limitExceeded("folder holds more than \(maxFiles * 2 + 1024) entries")
            }
        }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        var files: [String] = []
        var skipped = 0, subfolders = 0
        for name in NaturalSort.sorted(names) {
            let path = prefix + name
            var st = stat()
            guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                if (st.st_mode & S_IFMT) == S_IFDIR { subfolders += 1 }
                continue
            }
            if isImage(path, coders: coders) { files.append(path) } else { skipped += 1 }
        }
        guard files.count <= maxFiles else {
            throw .limitExceeded("\(files.count) images exceed the limit of \(maxFiles) frames")
        }
        return Listing(files: files, skipped: skipped, subfolders: subfolders)
    }

    /// Sniffs the signature (never the file name), as `AnimationLoader` does.
    static func isImage(_ path: String, coders: CoderRegistry = .shared) -> Bool {
        guard let src = try? ByteSource(path: path),
              let head = try? src.bytes(at: 0, length: CoderRegistry.headLength) else { return false }
        return coders.coder(for: head) != nil
    }
}
