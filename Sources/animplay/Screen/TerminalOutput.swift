import AnimatedCore
import AnimatedTerminal
import CNcurses

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

    /// The terminal's cell size in pixels: the kernel's window size in pixels divided by its
    /// size in cells; nil when it does not know.
    static func windowCellSize(fd: Int32) -> RenderSize? {
        var xp: Int32 = 0, yp: Int32 = 0, r: Int32 = 0, c: Int32 = 0
        if animplay_window_pixels(fd, &xp, &yp, &r, &c) != 0, xp > 0, yp > 0, r > 0, c > 0,
           xp / c > 0, yp / r > 0 {
            return RenderSize(width: Int(xp / c), height: Int(yp / r))
        }
        return nil
    }

    /// The terminal on `fd` as the outputs' sink (`sc`/`rc`: the screen's, or none for a still).
    static func sink(fd: Int32, saveCursor: [UInt8] = [], restoreCursor: [UInt8] = []) -> FileDescriptorSink {
        FileDescriptorSink(fd: fd, saveCursor: saveCursor, restoreCursor: restoreCursor,
                           cellSize: { windowCellSize(fd: fd) })
    }
}
