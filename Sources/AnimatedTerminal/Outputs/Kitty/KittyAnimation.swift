import AnimatedCore

/// The client side of a kitty animation: which frames the terminal holds and the commands that
/// make it show a given frame. Pure (it only appends bytes), so tests replay its output in an
/// emulator.
///
/// One image `id`, one placement. The first frame shown becomes the root frame (`a=T`, placed
/// at the cursor), every other frame is added once (`a=f`) the first time it is shown, and
/// showing a frame the terminal holds is one `a=a,c=N` switch. A frame of another size starts
/// the image again (resize).
///
/// Terminal storage: kitty keeps the root frame in its image quota (320 MiB by default) and the
/// added frames, as raw RGBA, in its disk cache, which refuses new frames past five times the
/// quota (`ENOSPC`). At most `storageBytes` of frames are uploaded to keep; past that, the last
/// frame slot is a spare whose data is replaced (`a=f,r=N,X=1`) by each frame that did not fit,
/// when it is shown, so the terminal's storage stays bounded and playback still works.
package struct KittyAnimation: Sendable {
    package let id: UInt32
    package var graphics: KittyGraphics
    /// Bytes of frame data the terminal is asked to hold at most.
    package let storageBytes: Int
    package private(set) var imageSize: RenderSize?
    /// Frame index → kitty frame number (1 = root) of the frames uploaded to keep.
    package private(set) var held: [Int: Int] = [:]
    /// Frame slots available at this size (kept frames plus the spare).
    package private(set) var slots = 0
    private var spare: Int?            // frame number of the spare slot, once created
    private var spareHolds: Int?       // frame index whose data the spare holds
    private var nextNumber = 1
    private var shownNumber = 0
    /// Frame uploads so far (roots, added frames and spare replacements; every image).
    package private(set) var uploads = 0

    /// 1 GiB: under kitty's default disk-cache limit for frames (5 × 320 MiB) with room for
    /// other programs' images; a 1280×720 animation of 300 frames (1.1 GB) nearly fits.
    package static let defaultStorageBytes = 1 << 30

    /// Writes frame data for `t=t`/`t=s` uploads; nil: frames go inline (`t=d`).
    package let stager: KittyStager?

    /// `graphics.compressed` must match the preparer's payloads (see `KittyFramePreparer`).
    package init(id: UInt32, graphics: KittyGraphics = KittyGraphics(),
                storageBytes: Int = KittyAnimation.defaultStorageBytes, stager: KittyStager? = nil) {
        self.id = id; self.graphics = graphics; self.storageBytes = storageBytes
        self.stager = stager.flatMap { $0.medium == .direct ? nil : $0 }
    }

    /// The commands' writer and payload for one upload of `data` (a prepared frame's payload):
    /// base64 of the name of a new file or shared-memory object holding it, or (no stager, or
    /// writing failed) base64 of the data, inline.
    package func transmission(_ data: [UInt8]) -> (KittyGraphics, [UInt8]) {
        guard let stager else { return (graphics, data.withUnsafeBytes { Base64.encode($0) }) }
        var g = graphics
        if let name = stager.write(data) {
            g.medium = stager.medium
            return (g, Array(name.utf8).withUnsafeBytes { Base64.encode($0) })
        }
        g.medium = .direct
        return (g, data.withUnsafeBytes { Base64.encode($0) })
    }

    /// The terminal holds `frame` for good (uploaded to keep, in this image): showing it again
    /// needs no data (a placeholder of it will do).
    package func holds(_ frame: ScaledFrame) -> Bool {
        imageSize == frame.size && held[frame.index] != nil
    }

    /// Frames the terminal holds for good, and whether some do not fit (streamed via the spare).
    package var heldCount: Int { held.count }
    package var streams: Bool { spare != nil }

    /// Appends what makes the terminal show `frame` (prepared by `KittyFramePreparer`; a
    /// placeholder only if `holds(frame)`).
    /// `cursor`: bytes that move the cursor to where the image goes; used when the image is
    /// (re)created, which is when the size changed or `restart()` was called. Inside tmux they
    /// move the outer terminal's cursor (pane offset included) and travel in the passthrough.
    /// `cells`: the cells the terminal stretches the image over (nil: its own size).
    package mutating func show(_ frame: ScaledFrame, cursor: [UInt8], cells: KittyCells? = nil, to out: inout [UInt8]) {
        if frame.isPlaceholder && !holds(frame) { return }       // no data to send
        if imageSize != frame.size {
            if imageSize != nil { graphics.delete(id: id, to: &out) }
            let (g, payload) = transmission(frame.payload)
            g.transmitAndPlace(id: id, placement: 1, size: frame.size, payload: payload, channels: frame.channels, cells: cells,
                               cursor: cursor, to: &out)
            started(root: frame.index, size: frame.size)
            return
        }
        let number: Int
        if let n = held[frame.index] {
            number = n
        } else if nextNumber < slots {
            let (g, payload) = transmission(frame.payload)
            g.addFrame(id: id, size: frame.size, payload: payload, channels: frame.channels, to: &out)
            number = nextNumber
            held[frame.index] = number
            nextNumber += 1
            uploads += 1
        } else if let s = spare {
            if spareHolds != frame.index {
                let (g, payload) = transmission(frame.payload)
                g.replaceFrame(id: id, frame: s, size: frame.size, payload: payload, channels: frame.channels, to: &out)
                spareHolds = frame.index
                uploads += 1
            }
            number = s
        } else {
            let (g, payload) = transmission(frame.payload)
            g.addFrame(id: id, size: frame.size, payload: payload, channels: frame.channels, to: &out)
            spare = nextNumber; spareHolds = frame.index
            number = nextNumber
            nextNumber += 1
            uploads += 1
        }
        if number != shownNumber {
            graphics.show(id: id, frame: number, to: &out)
            shownNumber = number
        }
    }

    /// The image is started (a new one) with frame `index` as its root, shown: by `show`, or
    /// by the caller once a streamed root (`streamedRoot`) went whole.
    package mutating func started(root index: Int, size: RenderSize) {
        imageSize = size
        slots = max(2, storageBytes / max(1, size.width * size.height * 4))
        held = [index: 1]
        spare = nil; spareHolds = nil
        nextNumber = 2; shownNumber = 1
        uploads += 1
    }

    /// The root frame's upload while it is prepared (`FrameStream`), inline, when no image
    /// exists: the command `show` would write for a frame of `size` and `channels`, its data to
    /// come in pieces. Nil when `show` would not write it so (an image exists, frames go
    /// through a file or shared memory, or through tmux).
    package func streamedRoot(size: RenderSize, channels: Int, cells: KittyCells?) -> KittyGraphics.StreamedCommand? {
        guard streamsRoot else { return nil }
        return graphics.streamedTransmitAndPlace(id: id, placement: 1, size: size, channels: channels, cells: cells)
    }

    /// Whether `streamedRoot` gives a command now.
    package var streamsRoot: Bool { imageSize == nil && stager == nil && !graphics.tmux }

    /// Deletes the image and all its frames; the next `show` starts a new one.
    package mutating func delete(to out: inout [UInt8]) {
        guard imageSize != nil else { return }
        graphics.delete(id: id, to: &out)
        imageSize = nil
        held = [:]; spare = nil; spareHolds = nil
    }
}
