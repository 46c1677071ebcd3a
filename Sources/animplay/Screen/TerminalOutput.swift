import AnimatedCore
import AnimatedNet
import AnimatedTerminal

/// Raw writes to the terminal file descriptor (the image cells that ncurses does not write).
enum TerminalOutput {
    /// Writes all bytes (see `writeAll`); gives up silently if the terminal is gone (EIO after
    /// a hang-up): there is no one left to tell.
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        _ = writeAll(fd, bytes)
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write(fd, $0) }
    }

    static func write(_ fd: Int32, _ s: String) {
        var s = s
        s.withUTF8 { write(fd, UnsafeRawBufferPointer($0)) }
    }
}
