import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Decoding and playing while the bytes arrive: a GIF fed into a `SpoolBuffer` piece by piece.
@Suite struct GrowingSourceTests {
    static let palette: [UInt32] = [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF]

    /// Four 4x4 frames of 100 ms, each one colour, looping twice.
    static func gif(frames: Int = 4) -> GIFTestWriter {
        var w = GIFTestWriter(width: 4, height: 4, palette: palette)
        w.loop(1)
        for k in 0..<frames {
            w.control(delayCs: 10)
            w.image(width: 4, height: 4, pixels: [UInt8](repeating: UInt8(k % 4), count: 16))
        }
        w.trailer()
        return w
    }

    @Test func indexGrowsWithEveryCutAndMatchesTheCompleteFile() throws {
        let w = Self.gif()
        let bytes = w.bytes
        let spool = SpoolBuffer(name: "cut")
        try spool.append(Array(bytes[0..<w.imageEnds[0]]))
        let decoder = try GIFDecoder(source: ByteSource(spool: spool), options: DecodeOptions())
        #expect(decoder.info.provisional && decoder.info.frameCount == 1 && decoder.info.warnings.isEmpty)
        // One byte at a time: a frame joins exactly when its data is complete, never early.
        for end in (w.imageEnds[0] + 1)...bytes.count {
            try spool.append([bytes[end - 1]])
            _ = try decoder.refresh()
            let complete = w.imageEnds.filter { $0 <= end }.count
            #expect(decoder.info.frameCount == complete, "at \(end)")
            #expect(decoder.info.warnings.isEmpty, "at \(end)")
            #expect(decoder.info.provisional)
        }
        spool.finish()
        #expect(try decoder.refresh())
        let whole = try GIFDecoder(source: ByteSource(bytes: bytes), options: DecodeOptions())
        #expect(!decoder.info.provisional)
        #expect(decoder.info.frameCount == whole.info.frameCount)
        #expect(decoder.info.plays == whole.info.plays && decoder.info.plays == 2)
        #expect(decoder.info.warnings == whole.info.warnings)
        // Frames composite the same as from the complete file.
        let a = try Compositor(decoder: decoder), b = try Compositor(decoder: whole)
        a.refreshInfo()
        for k in 0..<4 { #expect(Array(a.frame(at: k).pixels) == Array(b.frame(at: k).pixels)) }
    }

    @Test func sourceEndingEarlyWarnsLikeATruncatedFile() throws {
        let w = Self.gif()
        let cut = w.imageEnds[1] + 5           // inside frame 2's data
        let spool = SpoolBuffer(name: "dropped")
        try spool.append(Array(w.bytes[0..<cut]))
        let decoder = try GIFDecoder(source: ByteSource(spool: spool), options: DecodeOptions())
        #expect(decoder.info.frameCount == 2)
        spool.finish(failure: "connection reset")
        #expect(try decoder.refresh())
        let truncated = try GIFDecoder(source: ByteSource(bytes: w.bytes[0..<cut]), options: DecodeOptions())
        #expect(!decoder.info.provisional)
        #expect(decoder.info.frameCount == truncated.info.frameCount)
        #expect(decoder.info.warnings == truncated.info.warnings && !truncated.info.warnings.isEmpty)
    }

    /// The player waits at the last frame downloaded with the clock held: no early loop, no
    /// finish, and no burst when the next frame arrives later.
    @Test func playerWaitsAtTheLastFrameDownloaded() throws {
        let w = Self.gif()
        let spool = SpoolBuffer(name: "slow")
        try spool.append(Array(w.bytes[0..<w.imageEnds[1]]))
        let decoder = try GIFDecoder(source: ByteSource(spool: spool), options: DecodeOptions())
        let time = ManualTime()
        let t0 = time.now()
        let p = try makePlayer(decoder, PlayerOptions(maxFPS: 0), time: time)
        spool.observe(p.sourceGrowthHandler)
        #expect(p.info.provisional && p.info.frameCount == 2)
        #expect(settle(p).frame != nil)
        time.set(t0 + ms(100))
        #expect(settle(p).frame != nil)
        #expect(p.status.frameIndex == 1)
        // Frame 1 ends at 200 ms; nothing more has arrived: hold, do not loop or finish.
        time.set(t0 + ms(200))
        let held = settle(p)
        #expect(held.frame == nil && !held.finished)
        #expect(held.nextDeadline == t0 + ms(200) + Player.growthPollNanoseconds)
        time.set(t0 + ms(900))
        #expect(settle(p).frame == nil)
        #expect(p.status.frameIndex == 1 && p.timelinePosition == 1 && !p.status.finished)

        // Frame 2 arrives at 900 ms: it shows now and lasts its full 100 ms.
        try spool.append(Array(w.bytes[w.imageEnds[1]..<w.imageEnds[2]]))
        p.waitUntilBuffered()
        let u2 = settle(p)
        #expect(p.info.frameCount == 3 && p.info.provisional)
        #expect(u2.frame != nil && p.status.frameIndex == 2)
        #expect(u2.nextDeadline == t0 + ms(1000))
        #expect(p.status.droppedFrames == 0)

        // The rest and the end: the file's loop count applies (2 plays of 4 frames).
        try spool.append(Array(w.bytes[w.imageEnds[2]...]))
        spool.finish()
        p.waitUntilBuffered()
        time.set(t0 + ms(1000))
        _ = settle(p)
        #expect(!p.info.provisional && p.info.frameCount == 4)
        #expect(p.status.frameIndex == 3 && p.status.plays == 2)
        time.set(t0 + ms(1100))
        _ = settle(p)
        #expect(p.status.frameIndex == 0 && p.status.play == 2)
        for t in [1200.0, 1300, 1400] {
            time.set(t0 + ms(t))
            #expect(settle(p).frame != nil)
        }
        time.set(t0 + ms(1500))
        #expect(settle(p).finished)
        #expect(p.status.droppedFrames == 0)
    }

    @Test func webpFramesJoinAsTheFileGrows() throws {
        var path = #filePath
        while !path.hasSuffix("/Tests") { path = String(path[..<path.lastIndex(of: "/")!]) }
        let whole = try ByteSource(path: path + "/../samples/orbit.webp")
        let bytes = try whole.allBytes()
        let complete = try WebPDecoder(source: whole, options: DecodeOptions())
        let spool = SpoolBuffer(name: "webp")
        var at = bytes.count / 4
        try spool.append(Array(bytes[0..<at]))
        let decoder = try WebPDecoder(source: ByteSource(spool: spool), options: DecodeOptions())
        decoder.refreshStep = 1
        #expect(decoder.info.provisional && decoder.info.warnings.isEmpty)
        var counts = [decoder.info.frameCount]
        while at < bytes.count {
            let next = min(bytes.count, at + 700)
            try spool.append(Array(bytes[at..<next]))
            at = next
            _ = try decoder.refresh()
            #expect(decoder.info.frameCount >= counts.last!)
            #expect(decoder.info.warnings.isEmpty)
            counts.append(decoder.info.frameCount)
        }
        #expect(counts.first! < complete.info.frameCount)      // frames joined on the way
        spool.finish()
        _ = try decoder.refresh()
        #expect(!decoder.info.provisional && decoder.info.frameCount == complete.info.frameCount)
        let a = try Compositor(decoder: decoder), b = try Compositor(decoder: complete)
        a.refreshInfo()
        for k in [0, 17, complete.info.frameCount - 1] {
            #expect(Array(a.frame(at: k).pixels) == Array(b.frame(at: k).pixels))
        }
    }

    @Test func apngFramesJoinAsTheFileGrows() throws {
        var path = #filePath
        while !path.hasSuffix("/Tests") { path = String(path[..<path.lastIndex(of: "/")!]) }
        let whole = try ByteSource(path: path + "/../samples/spinner.png")
        let bytes = try whole.allBytes()
        let complete = try APNGDecoder(source: whole, options: DecodeOptions())
        let spool = SpoolBuffer(name: "apng")
        var at = bytes.count / 5
        try spool.append(Array(bytes[0..<at]))
        let decoder = try APNGDecoder(source: ByteSource(spool: spool), options: DecodeOptions())
        decoder.refreshStep = 1
        #expect(decoder.info.provisional && decoder.info.warnings.isEmpty && decoder.info.format == .apng)
        var counts = [decoder.info.frameCount]
        while at < bytes.count {
            let next = min(bytes.count, at + 300)
            try spool.append(Array(bytes[at..<next]))
            at = next
            _ = try decoder.refresh()
            #expect(decoder.info.frameCount >= counts.last! && decoder.info.warnings.isEmpty)
            counts.append(decoder.info.frameCount)
        }
        #expect(counts.first! < complete.info.frameCount)
        spool.finish()
        _ = try decoder.refresh()
        #expect(!decoder.info.provisional && decoder.info.frameCount == complete.info.frameCount)
        let a = try Compositor(decoder: decoder), b = try Compositor(decoder: complete)
        for k in 0..<complete.info.frameCount {
            #expect(Array(a.frame(at: k).pixels) == Array(b.frame(at: k).pixels))
        }
    }

    /// A download that ends inside a frame's data: while it grows that frame is not shown
    /// (the rest is coming); once it has ended, the frame shows the rows that arrived, as the
    /// same bytes from a file do.
    @Test func apngCutInsideAFrameShowsItOnlyOnceTheDownloadHasEnded() throws {
        let file = try ByteSource(path: Corpus.fixtures + "/browser/apng-cut-source.png")
        let fromFile = try APNGDecoder(source: file, options: DecodeOptions())
        #expect(fromFile.info.frameCount == 2 && fromFile.info.warnings.contains { $0.contains("rows that arrived") })
        let spool = SpoolBuffer(name: "apng-cut")
        try spool.append(try file.allBytes())
        let decoder = try APNGDecoder(source: ByteSource(spool: spool), options: DecodeOptions())
        decoder.refreshStep = 1
        #expect(decoder.info.provisional && decoder.info.frameCount == 1 && decoder.info.warnings.isEmpty)
        spool.finish()
        _ = try decoder.refresh()
        #expect(!decoder.info.provisional && decoder.info.frameCount == 2)
        let a = try Compositor(decoder: decoder), b = try Compositor(decoder: fromFile)
        #expect(Array(a.frame(at: 1).pixels) == Array(b.frame(at: 1).pixels))
        #expect(a.problems.isEmpty)
    }

    @Test func stillPNGWaitsForTheWholeFile() throws {
        var w = [UInt8]()
        var path = #filePath
        while !path.hasSuffix("/Tests") { path = String(path[..<path.lastIndex(of: "/")!]) }
        w = try ByteSource(path: path + "/../samples/walk-sheet.png").allBytes()
        let spool = SpoolBuffer(name: "png")
        try spool.append(Array(w[0..<(w.count - 12)]))       // all but IEND
        #expect(throws: AnimatedError.self) { try APNGDecoder(source: ByteSource(spool: spool), options: DecodeOptions()) }
        try spool.append(Array(w[(w.count - 12)...]))
        spool.finish()
        let d = try APNGDecoder(source: ByteSource(spool: spool), options: DecodeOptions())
        #expect(d.info.format == .png && !d.info.provisional)
    }
}
