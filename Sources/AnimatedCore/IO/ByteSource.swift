#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random-access bytes of one input: a file read with `pread` (so the process never has to hold
/// the whole file), a buffer in memory (tests, fuzzing), or a `SpoolBuffer` that may still be
/// growing (stdin, pipes, downloads).
///
/// Not thread-safe: one decoder, one thread at a time.
public final class ByteSource {
    private enum Storage {
        case file(Int32, base: Int)
        case memory(UnsafeMutableRawBufferPointer)
        case spool(SpoolBuffer)
    }
    private let storage: Storage
    /// Size in bytes. For a spool, the bytes that had arrived at the last `refresh()` (a decoder
    /// sees a fixed prefix until it asks for more).
    public private(set) var count: Int
    /// More bytes may come (a spool not finished at the last `refresh()`).
    package private(set) var isGrowing = false
    /// A name for messages (the path, or "<memory>").
    public let name: String

    /// Opens `path` for reading. Directories, missing and unreadable files are clean errors.
    public init(path: String) throws(AnimatedError) {
        // O_NONBLOCK: opening a FIFO that has no writer would otherwise wait forever; it is then
        // refused below as not a regular file. (No effect on reads of regular files.)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .posix(.unreadable, errno) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno; close(fd); throw .posix(.unreadable, e)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { close(fd); throw .unreadable("is a directory") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { close(fd); throw .unreadable("not a regular file") }
        storage = .file(fd, base: 0)
        count = Int(st.st_size)
        name = path
    }

    /// Reads `count` bytes at `offset` of an open regular file (which it takes over and closes):
    /// a cache entry's body after its header.
    public init(fd: Int32, offset: Int, count: Int, name: String) {
        storage = .file(fd, base: offset)
        self.count = count
        self.name = name
    }

    /// Wraps a copy of `bytes`.
    public init<C: Collection>(bytes: C, name: String = "<memory>") where C.Element == UInt8 {
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        _ = buf.initializeMemory(as: UInt8.self, from: bytes)
        storage = .memory(buf)
        count = bytes.count
        self.name = name
    }

    /// Everything `fd` yields until end of file, held in memory: for a pipe or a socket, which
    /// cannot be read at offsets (standard input is fd 0; `name` is what messages call it, e.g.
    /// `"<stdin>"`). Throws `.limitExceeded` past `limit` bytes and `.unreadable` on a read error.
    /// A player that should start before the last byte arrives reads a `SpoolBuffer` instead.
    public convenience init(readingToEndOf fd: Int32, name: String, limit: Int = 1 << 30) throws(AnimatedError) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { readSome(fd, $0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .posix(.unreadable, errno, "\(name): ")
            }
            if n == 0 { break }
            guard bytes.count + n <= limit else { throw .limitExceeded("\(name) is larger than \(limit) bytes") }
            bytes += chunk[0..<n]
        }
        self.init(bytes: bytes, name: name)
    }

    /// Reads a spool: what has arrived so far, and more after each `refresh()`.
    public init(spool: SpoolBuffer) {
        storage = .spool(spool)
        let p = spool.progress
        count = p.count
        isGrowing = !p.finished
        name = spool.name
    }

    deinit {
        switch storage {
        case .file(let fd, _): close(fd)
        case .memory(let buf): buf.deallocate()
        case .spool: break
        }
    }

    /// A second, independent reader of the same bytes (for another thread): a file is opened
    /// again through a duplicated descriptor, memory is copied, a spool is shared.
    package func duplicate() throws(AnimatedError) -> sending ByteSource {
        switch storage {
        case .file(let fd, let base):
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else { throw .posix(.unreadable, errno) }
            return ByteSource(fd: copy, offset: base, count: count, name: name)
        case .memory(let buf):
            let bytes = [UInt8](UnsafeRawBufferPointer(rebasing: buf[..<count]))
            return ByteSource(bytes: bytes, name: name)
        case .spool(let s):
            return ByteSource(spool: s)
        }
    }

    /// Stops the load that fills this source's spool (a download, a pipe being read): readers
    /// fail with `SpoolBuffer.cancelledMessage` instead of waiting for more. Nothing for files
    /// and memory. See `SpoolBuffer.cancel()`.
    public func cancelLoad() { spool?.cancel() }

    /// The spool behind this source, if any.
    package var spool: SpoolBuffer? {
        if case .spool(let s) = storage { return s }
        return nil
    }

    /// Takes in the bytes that arrived since the last call (spools only). True if `count` or
    /// `isGrowing` changed.
    @discardableResult
    package func refresh() -> Bool {
        guard case .spool(let s) = storage else { return false }
        let p = s.progress
        let changed = p.count != count || isGrowing == p.finished
        count = p.count
        isGrowing = !p.finished
        return changed
    }

    /// Copies up to `buffer.count` bytes starting at `offset`; returns how many were copied
    /// (fewer only at the end of the data).
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(AnimatedError) -> Int {
        guard offset >= 0, offset < count, buffer.count > 0 else { return 0 }
        let n = min(buffer.count, count - offset)
        switch storage {
        case .memory(let mem):
            buffer.baseAddress!.copyMemory(from: mem.baseAddress! + offset, byteCount: n)
            return n
        case .spool(let spool):
            return try spool.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<n]))
        case .file(let fd, let base):
            var done = 0
            while done < n {
                let r = pread(fd, buffer.baseAddress! + done, n - done, off_t(base + offset + done))
                if r < 0 {
                    if errno == EINTR { continue }
                    throw .posix(.unreadable, errno)
                }
                if r == 0 { break }
                done += r
            }
            return done
        }
    }

    /// Reads `length` bytes at `offset` into a new array (short at the end of the data).
    public func bytes(at offset: Int, length: Int) throws(AnimatedError) -> [UInt8] {
        let n = max(0, min(length, count - offset))
        guard n > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: n)
        var failure: AnimatedError?
        let got = out.withUnsafeMutableBytes { b -> Int in
            do { return try read(at: offset, into: b) } catch { failure = (error as? AnimatedError) ?? .unreadable("I/O error"); return 0 }
        }
        if let failure { throw failure }
        if got < n { out.removeLast(n - got) }
        return out
    }

    /// All bytes (for formats whose library needs the whole file in memory).
    public func allBytes() throws(AnimatedError) -> [UInt8] { try bytes(at: 0, length: count) }
}

/// `read(2)` (the name inside `ByteSource` means its own method).
private func readSome(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(fd, buffer.baseAddress, buffer.count)
}
