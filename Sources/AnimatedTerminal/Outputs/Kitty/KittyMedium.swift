import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// How kitty receives frame data: inline base64 (`t=d`, works everywhere, over ssh too), or,
/// when the terminal runs on this machine, only the name of a temporary file (`t=t`) or of a
/// POSIX shared-memory object (`t=s`) holding the data. kitty deletes the file (its name must
/// contain `tty-graphics-protocol` and it must lie in a temporary directory) or unlinks the
/// object once it has read it, so each upload writes a new one.
public enum KittyMedium: String, Sendable {
    /// Inline base64 in the escape sequence (`t=d`).
    case direct = "d"
    /// A temporary file kitty reads and deletes (`t=t`).
    case file = "t"
    /// A POSIX shared-memory object kitty reads and unlinks (`t=s`).
    case sharedMemory = "s"

    /// Probe ids (`a=q`), distinct from the support query's.
    package static let fileProbeID: UInt32 = 32
    package static let sharedMemoryProbeID: UInt32 = 33

    /// Marker kitty requires in a temporary file's name before it deletes the file.
    package static let nameTag = "tty-graphics-protocol"

    /// ssh in between: the terminal cannot see our files, whatever a probe says.
    package static func overSSH(_ env: [String: String]) -> Bool {
        ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"].contains { !(env[$0] ?? "").isEmpty }
    }

    /// The medium to use given the probe answers (`kittyReplies`): shared memory first (it
    /// measured fastest: no file system, kitty maps the object), then a temporary file.
    package static func choose(replies: [UInt32: String], env: [String: String]) -> KittyMedium {
        if overSSH(env) { return .direct }
        if replies[sharedMemoryProbeID] == "OK" { return .sharedMemory }
        if replies[fileProbeID] == "OK" { return .file }
        return .direct
    }
}

/// Writes upload data where kitty reads it (a new temporary file or shared-memory object per
/// upload) and names it. Not pure: the display thread calls it just before it sends the name,
/// so nothing is left behind for frames that are never shown.
package struct KittyStager: Sendable {
    package let medium: KittyMedium
    /// Directory for `t=t` files: $TMPDIR, else /tmp (kitty deletes only files in temp dirs).
    package let directory: String
    private static let counter = Atomic<Int>(0)

    package init(medium: KittyMedium, directory: String? = nil) {
        self.medium = medium
        self.directory = directory ?? TemporaryFile.folder
    }

    /// Writes `bytes` to a new object and returns its name (a path, or a shm name starting
    /// with `/`); nil when that failed (nothing is left behind), for the caller to send inline.
    package func write(_ bytes: [UInt8]) -> String? {
        switch medium {
        case .direct:
            return nil
        case .file:
            var template = Array("\(directory)/animplay-\(KittyMedium.nameTag)-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { return nil }
            let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            let ok = Self.writeAll(fd, bytes)
            close(fd)
            if !ok { unlink(path); return nil }
            return path
        case .sharedMemory:
            let n = Self.counter.add(1, ordering: .relaxed).newValue
            let name = "/animplay-\(KittyMedium.nameTag)-\(getpid())-\(n)"
            let fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0o600)
            guard fd >= 0 else { return nil }
            let ok = ftruncate(fd, off_t(bytes.count)) == 0 && Self.writeAll(fd, bytes)
            close(fd)
            if !ok { shm_unlink(name); return nil }
            Self.written.withLock { $0.append(name) }
            return name
        }
    }

    /// Removes an object kitty did not take (a probe it did not answer).
    package func remove(_ name: String) {
        switch medium {
        case .direct: break
        case .file: unlink(name)
        case .sharedMemory: shm_unlink(name); Self.written.withLock { $0.removeAll { $0 == name } }
        }
    }

    /// Shared-memory objects this process wrote (kitty unlinks each once it has read it; one it
    /// never read, because the program ended first or the upload failed, would stay in
    /// /dev/shm until reboot).
    private static let written = Mutex<[String]>([])

    /// Unlinks every object this process wrote that is still there. Call once the terminal
    /// has read all it will (after a DA1 round trip: kitty handles input in order).
    /// Returns how many were left.
    @discardableResult
    package static func removeLeftovers() -> Int {
        let names = written.withLock { w in defer { w = [] }; return w }
        return names.reduce(0) { $0 + (shm_unlink($1) == 0 ? 1 : 0) }
    }

    /// Unlinks the objects of animplay processes that no longer run (named
    /// `animplay-tty-graphics-protocol-PID-N`; objects of live or other users' processes are
    /// left). Returns how many went. Linux: objects are the files of /dev/shm.
    @discardableResult
    package static func removeStaleObjects(directory: String = "/dev/shm") -> Int {
        guard let d = opendir(directory) else { return 0 }
        defer { closedir(d) }
        let prefix = "animplay-\(KittyMedium.nameTag)-"
        var removed = 0
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            guard name.hasPrefix(prefix) else { continue }
            let rest = name.dropFirst(prefix.count).split(separator: "-")
            guard rest.count == 2, let pid = Int32(rest[0]), pid > 0, rest[1].allSatisfy(\.isNumber) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH, shm_unlink("/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                off += n
            }
            return true
        }
    }

    /// The probe for this medium: a 1×1 RGB image in a new object, queried with `a=q` (nothing
    /// is stored or shown), and the object's name for `remove` after the round. Nil when the
    /// object could not be written.
    package func probe(id: UInt32) -> (query: [UInt8], name: String)? {
        guard let name = write([0, 0, 0]) else { return nil }
        let path = Array(name.utf8).withUnsafeBytes { Base64.encode($0) }
        let query = Array("\u{1B}_Ga=q,i=\(id),s=1,v=1,f=24,t=\(medium.rawValue);".utf8) + path + [0x1B, 0x5C]
        return (query, name)
    }
}
