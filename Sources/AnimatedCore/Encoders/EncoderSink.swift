#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an encoder's bytes go: appended in order, plus `patch` of bytes already written (the
/// APNG frame count, known only at the end, is patched into its acTL).
public protocol EncoderSink: AnyObject {
    /// Bytes written so far.
    var offset: Int { get }
    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(AnimatedError)
    /// Overwrites `bytes.count` bytes at `offset` (which must all have been written already).
    func patch(_ bytes: [UInt8], at offset: Int) throws(AnimatedError)
}

extension EncoderSink {
    /// Appends an array of bytes.
    public func write(_ bytes: [UInt8]) throws(AnimatedError) {
        var failure: AnimatedError?
        bytes.withUnsafeBytes { b in do throws(AnimatedError) { try write(b) } catch { failure = error } }
        if let failure { throw failure }
    }
}

/// The encoded file in memory (`YYImageEncoder.encode()`; tests).
public final class MemorySink: EncoderSink {
    /// Everything written.
    public private(set) var bytes: [UInt8] = []
    /// An empty sink.
    public init() {}
    public var offset: Int { bytes.count }
    public func write(_ b: UnsafeRawBufferPointer) throws(AnimatedError) { bytes.append(contentsOf: b) }
    public func patch(_ b: [UInt8], at offset: Int) throws(AnimatedError) {
        precondition(offset >= 0 && offset + b.count <= bytes.count, "patch beyond what was written")
        bytes.replaceSubrange(offset..<(offset + b.count), with: b)
    }
}

/// An open file descriptor (not closed here), written through a 256 KiB buffer.
public final class FileSink: EncoderSink {
    private let fd: Int32
    private let name: String
    private var buffer: [UInt8] = []
    private var flushed = 0

    /// Writes to `fd`; `name` is used in error messages.
    public init(fd: Int32, name: String) {
        self.fd = fd; self.name = name
        buffer.reserveCapacity(1 << 18)
    }

    public var offset: Int { flushed + buffer.count }

    public func write(_ b: UnsafeRawBufferPointer) throws(AnimatedError) {
        if buffer.count + b.count > 1 << 18 { try flush() }
        if b.count >= 1 << 18 {
            try writeOut(b)
        } else {
            buffer.append(contentsOf: b)
        }
    }

    public func patch(_ b: [UInt8], at offset: Int) throws(AnimatedError) {
        precondition(offset >= 0 && offset + b.count <= self.offset, "patch beyond what was written")
        try flush()
        let n = b.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard n == b.count else { throw .output("\(name): \(String(cString: strerror(errno)))") }
    }

    /// Writes out what is buffered.
    public func flush() throws(AnimatedError) {
        guard !buffer.isEmpty else { return }
        let pending = buffer
        buffer.removeAll(keepingCapacity: true)
        var failure: AnimatedError?
        pending.withUnsafeBytes { p in do throws(AnimatedError) { try writeOut(p) } catch { failure = error } }
        if let failure { throw failure }
    }

    private func writeOut(_ b: UnsafeRawBufferPointer) throws(AnimatedError) {
        let e = writeAll(fd, b)
        guard e == 0 else { throw .output("\(name): \(String(cString: strerror(e)))") }
        flushed += b.count
    }
}
