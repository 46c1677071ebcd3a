import Foundation
import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal
import AnimatedTestSupport

@Suite struct OutputKittyTests {
    /// Noise-like pixels compress badly, so payloads span several chunks.
    func noisyCanvas(_ w: Int, _ h: Int, seed: UInt32) -> Canvas {
        let c = Canvas(width: w, height: h)
        var x = seed | 1
        for i in 0..<(w * h * 4) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; c.pixels[i] = UInt8(truncatingIfNeeded: x) }
        return c
    }

    @Test func payloadIsZlibOfTheScaledFrameSentAsBase64InChunks() {
        let canvas = noisyCanvas(64, 48, seed: 7)
        let size = RenderSize(width: 64, height: 48)
        let frame = KittyFramePreparer().scale(canvas, index: 0, to: size)
        #expect(frame.pixels.isEmpty)                 // the buffer holds only the encoded form
        let expected = AreaAverageScaler().scale(canvas, index: 0, to: size).pixels
        #expect(Zlib.decompress(frame.payload, limit: 64 * 48 * 4) == expected)   // zlib, not base64
        let text = KittyAnimation(id: 9).transmission(frame.payload).1
        #expect(Base64.decode(text) == frame.payload)
        var out: [UInt8] = []
        KittyGraphics().transmitAndPlace(id: 9, placement: 1, size: size, payload: text, to: &out)
        var term = MiniKitty()
        term.feed(out)
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(term.text.isEmpty)
        #expect(term.chunkSizes.count == (text.count + 4095) / 4096)
        #expect(term.chunkSizes.count > 2)
        #expect(term.chunkSizes.dropLast().allSatisfy { $0 == 4096 })
        let first = term.commands[0]
        #expect(first["a"] == "T" && first["i"] == "9" && first["p"] == "1" && first["C"] == "1")
        #expect(first["s"] == "64" && first["v"] == "48" && first["f"] == "32" && first["o"] == "z")
        #expect(term.shown(9) == expected)
    }

    @Test func tmuxPassthroughDoublesEscapesAndUnwrapsToTheSameCommands() {
        let canvas = noisyCanvas(40, 30, seed: 3)
        let size = RenderSize(width: 40, height: 30)
        let text = KittyFramePreparer().scale(canvas, index: 0, to: size).payload.withUnsafeBytes { Base64.encode($0) }
        var plain: [UInt8] = [], wrapped: [UInt8] = []
        KittyGraphics().transmitAndPlace(id: 5, placement: 1, size: size, payload: text, to: &plain)
        KittyGraphics(tmux: true).transmitAndPlace(id: 5, placement: 1, size: size, payload: text, to: &wrapped)
        // Every ESC inside a passthrough is doubled: no lone ESC \ ends the DCS early.
        let prefix: [UInt8] = [0x1B, 0x50] + Array("tmux;".utf8)
        #expect(Array(wrapped.prefix(prefix.count)) == prefix)
        var a = MiniKitty(), b = MiniKitty()
        a.feed(plain); b.feed(wrapped)
        #expect(b.errors.isEmpty && b.text.isEmpty, "\(b.errors)")
        #expect(a.commands == b.commands)
        #expect(b.shown(5) == a.shown(5))
    }

    /// Three plays of three frames: each frame goes up once, then only switches.
    @Test func threePlaysUploadEachFrameOnce() {
        let size = RenderSize(width: 8, height: 8)
        let colours: [(UInt8, UInt8, UInt8, UInt8)] = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 128)]
        let frames = colours.enumerated().map { i, c in
            KittyFramePreparer().scale(solidCanvas(8, 8, c), index: i, to: size)
        }
        var anim = KittyAnimation(id: 77)
        var term = MiniKitty()
        var bytesPerPlay: [Int] = []
        for _ in 0..<3 {
            var playBytes = 0
            for (i, f) in frames.enumerated() {
                var out: [UInt8] = []
                anim.show(f, cursor: Array("\u{1B}[3;4H".utf8), to: &out)
                playBytes += out.count
                term.feed(out)
                let c = colours[i]
                #expect(term.shown(77).map { Array($0.prefix(4)) } == [c.0, c.1, c.2, c.3])
            }
            bytesPerPlay.append(playBytes)
        }
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(anim.uploads == 3)
        #expect(term.images[77]?.frames.count == 3)
        #expect(term.commands.filter { $0["a"] == "T" || $0["a"] == "f" }.count == 3)
        // Later plays are frame switches only: tens of bytes per frame.
        #expect(bytesPerPlay[1] == bytesPerPlay[2])
        #expect(bytesPerPlay[1] <= 3 * 40)
        // Leaving deletes the image and all its frames.
        var out: [UInt8] = []
        anim.delete(to: &out)
        term.feed(out)
        #expect(term.images.isEmpty)
    }

    @Test(arguments: [KittyMedium.sharedMemory, .file])
    func framesThroughFileOrSharedMemoryReadBackEqualTheFrames(medium: KittyMedium) throws {
        let size = RenderSize(width: 9, height: 5)
        let canvases = (0..<3).map { noisyCanvas(9, 5, seed: UInt32(11 + $0)) }
        let preparer = KittyFramePreparer(medium: medium)
        let frames = canvases.enumerated().map { i, c in preparer.scale(c, index: i, to: size) }
        let expected = canvases.enumerated().map { i, c in AreaAverageScaler().scale(c, index: i, to: size).pixels }
        // The zlib stream goes to the medium as it is (no base64: kitty reads it from memory).
        #expect(preparer.compress)
        #expect(frames.map { Zlib.decompress($0.payload, limit: 9 * 5 * 4) } == expected)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("animplay-medium-\(getpid())-\(medium.rawValue)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var graphics = KittyGraphics()
        graphics.compressed = preparer.compress
        var anim = KittyAnimation(id: 5, graphics: graphics, stager: KittyStager(medium: medium, directory: dir.path))
        var term = MiniKitty()
        for _ in 0..<2 {
            for (i, f) in frames.enumerated() {
                var out: [UInt8] = []
                anim.show(f, cursor: [], to: &out)
                term.feed(out)
                #expect(term.shown(5) == expected[i])
            }
        }
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(anim.uploads == 3 && term.objectsRead == 3)
        #expect(term.commands.filter { $0["a"] == "T" || $0["a"] == "f" }.allSatisfy { $0["t"] == medium.rawValue && $0["o"] == "z" })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Opaque frames go as RGB (`f=24`), frames with alpha as RGBA (`f=32`), mixed in one
    /// animation (root, added frames, the spare's replacements, a still): the terminal shows
    /// each frame's RGBA either way. Inline and through shared memory, compressed and raw.
    @Test(arguments: [(KittyMedium.direct, true), (.sharedMemory, true), (.file, false)])
    func opaqueFramesGoAsRGBAndShowTheSamePixels(medium: KittyMedium, compress: Bool) throws {
        let size = RenderSize(width: 6, height: 4)
        let canvases = (0..<4).map { i -> Canvas in
            let c = noisyCanvas(6, 4, seed: UInt32(21 + i))
            if i != 1 { for p in 0..<24 { c.pixels[p * 4 + 3] = 255 } }   // frame 1 keeps its alpha
            return c
        }
        canvases[3].pixels[23 * 4 + 3] = 254                                  // last pixel not opaque
        let preparer = KittyFramePreparer(medium: medium, compress: compress)
        let frames = canvases.enumerated().map { i, c in preparer.scale(c, index: i, to: size) }
        #expect(frames.map(\.channels) == [3, 4, 3, 4])
        if !compress { #expect(frames.map(\.payload.count) == [72, 96, 72, 96]) }
        let expected = canvases.map { Array($0.pixels) }
        for (f, e) in zip(frames, expected) {
            #expect(KittyFramePreparer.pixels(of: f.payload, size: size, channels: f.channels, compressed: compress) == e)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("animplay-rgb-\(getpid())-\(medium.rawValue)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var graphics = KittyGraphics()
        graphics.compressed = compress
        // 3 slots: frames 0 and 1 kept, 2 and 3 through the spare (replaced on every show).
        var anim = KittyAnimation(id: 4, graphics: graphics, storageBytes: 3 * 96,
                                  stager: KittyStager(medium: medium, directory: dir.path))
        var term = MiniKitty()
        for _ in 0..<2 {
            for (i, f) in frames.enumerated() {
                var out: [UInt8] = []
                anim.show(f, cursor: [], to: &out)
                term.feed(out)
                #expect(term.shown(4) == expected[i])
            }
        }
        var out: [UInt8] = []
        let (g, payload) = anim.transmission(frames[2].payload)
        g.transmitStill(size: size, payload: payload, channels: frames[2].channels, to: &out)
        term.feed(out)
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(term.stills == [expected[2]])
        #expect(term.formats == [24, 32, 24, 32, 24, 32, 24])
        #expect(term.commands.filter { $0["a"] == "T" || $0["a"] == "f" }.map { $0["f"] }
                == ["24", "32", "24", "32", "24", "32", "24"])
        #expect(anim.heldCount == 2 && anim.streams)
    }

    @Test func mediumIsChosenFromTheProbeAndNeverOverSSH() {
        let both: [UInt32: String] = [KittyMedium.fileProbeID: "OK", KittyMedium.sharedMemoryProbeID: "OK"]
        #expect(KittyMedium.choose(replies: both, env: [:]) == .sharedMemory)
        #expect(KittyMedium.choose(replies: [KittyMedium.fileProbeID: "OK", KittyMedium.sharedMemoryProbeID: "EBADF:x"],
                                   env: [:]) == .file)
        #expect(KittyMedium.choose(replies: [KittyMedium.fileProbeID: "ENOENT:x"], env: [:]) == .direct)
        #expect(KittyMedium.choose(replies: [:], env: [:]) == .direct)
        for v in ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"] {
            #expect(KittyMedium.choose(replies: both, env: [v: "x"]) == .direct)
        }
        // A probe transmits a 1×1 image through the medium and names the object it wrote.
        let stager = KittyStager(medium: .sharedMemory)
        let probe = stager.probe(id: KittyMedium.sharedMemoryProbeID)!
        var term = MiniKitty()
        term.feed(probe.query)
        #expect(term.commands.first?["a"] == "q" && term.commands.first?["t"] == "s")
        stager.remove(probe.name)
        #expect(!FileManager.default.fileExists(atPath: "/dev/shm" + probe.name))
    }

    @Test func aNewSizeStartsTheImageAgain() {
        var anim = KittyAnimation(id: 3)
        var term = MiniKitty()
        var out: [UInt8] = []
        let small = KittyFramePreparer().scale(solidCanvas(4, 4, (1, 2, 3, 255)), index: 0, to: RenderSize(width: 4, height: 4))
        let big = KittyFramePreparer().scale(solidCanvas(4, 4, (1, 2, 3, 255)), index: 0, to: RenderSize(width: 8, height: 8))
        anim.show(small, cursor: [], to: &out)
        anim.show(big, cursor: [], to: &out)
        term.feed(out)
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(term.commands.map { $0["a"] } == ["T", "d", "T"])
        #expect(term.images[3]?.width == 8 && term.images[3]?.frames.count == 1)
    }

    /// When the terminal cannot hold every frame, the ones that fit stay and the rest share a
    /// spare frame whose data is replaced when shown.
    @Test func framesBeyondTheStorageBudgetShareASpareSlot() {
        let size = RenderSize(width: 4, height: 4)   // 64 bytes a frame
        let frames = (0..<6).map { i in
            KittyFramePreparer().scale(solidCanvas(4, 4, (UInt8(i * 40), 0, 0, 255)), index: i, to: size)
        }
        var anim = KittyAnimation(id: 1, storageBytes: 4 * 64)   // 4 slots: 3 kept + 1 spare
        var term = MiniKitty()
        for _ in 0..<2 {
            for (i, f) in frames.enumerated() {
                var out: [UInt8] = []
                anim.show(f, cursor: [], to: &out)
                term.feed(out)
                #expect(term.shown(1).map { $0[0] } == UInt8(i * 40))
            }
        }
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(term.images[1]?.frames.count == 4)
        #expect(anim.heldCount == 3 && anim.streams)
        // 3 kept frames once; frames 3, 4, 5 through the spare on each of the 2 plays.
        #expect(anim.uploads == 3 + 3 * 2)
    }

    @Test func bgColourIsBlendedInTheTransparentStaysForKitty() {
        let size = RenderSize(width: 4, height: 4)
        let canvas = solidCanvas(4, 4, (255, 0, 0, 128))
        let onBlue = KittyFramePreparer(background: .color(0, 0, 255)).scale(canvas, index: 0, to: size)
        #expect(onBlue.channels == 3)                 // blended: opaque, sent as RGB
        let px = KittyFramePreparer.pixels(of: onBlue.payload, size: size, channels: 3)!
        #expect(Array(px.prefix(4)) == [128, 0, 127, 255])
        let kept = KittyFramePreparer().scale(canvas, index: 0, to: size)
        #expect(kept.channels == 4)
        #expect(Array(KittyFramePreparer.pixels(of: kept.payload, size: size)!.prefix(4)) == [255, 0, 0, 128])
        let checker = KittyFramePreparer(background: .checker).scale(solidCanvas(8, 8, (0, 0, 0, 0)), index: 0,
                                                                     to: RenderSize(width: 8, height: 8))
        let cp = KittyFramePreparer.pixels(of: checker.payload, size: RenderSize(width: 8, height: 8), channels: checker.channels)!
        #expect(cp[0] == 0x99 && cp[4 * 4] == 0x66 && cp[3] == 255)
    }

    /// Upload errors come back among the keys: they are not keys, and the output gets them.
    @Test func kittyRepliesAreTakenOutOfTheKeysAndHandedOn() {
        func codes(_ s: String) -> [Int32] { s.utf8.map { Int32($0) } }
        var f = KeyReplyFilter()
        let keys = f.filter(codes("a\u{1B}_Gi=7;ENOSPC:no room\u{1B}\\b") + [260], now: 1)
        #expect(keys == codes("ab") + [260])
        #expect(f.takeGraphicsReplies().map(\.message) == ["ENOSPC:no room"])
        #expect(f.takeGraphicsReplies().isEmpty)
        // Split across reads.
        #expect(f.filter(codes("\u{1B}_Gi=7;EIN"), now: 2).isEmpty)
        #expect(f.filter(codes("VAL\u{1B}\\q"), now: 3) == codes("q"))
        #expect(f.takeGraphicsReplies().map(\.message) == ["EINVAL"])
    }

    @Test func detectionPolicy() {
        func d(_ env: [String: String], _ answers: TerminalGraphicsAnswers? = nil, passthrough: Bool = false,
               _ req: GraphicsRequest = .auto) -> GraphicsPolicy.Decision {
            GraphicsPolicy.decide(req, env: env, answers: answers, tmuxPassthrough: passthrough)
        }
        #expect(d(["TERM": "xterm-kitty"]).graphics == .kitty)
        #expect(d(["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]).graphics == .kitty)
        #expect(d(["TERM": "xterm-ghostty"]).graphics == .kitty)
        #expect(d(["TERM": "xterm-256color", "WEZTERM_EXECUTABLE": "/usr/bin/wezterm"]).graphics == .iterm2)
        #expect(d(["TERM_PROGRAM": "iTerm.app"]).graphics == .iterm2)
        #expect(d(["KONSOLE_VERSION": "230401"]).graphics == .sixel)
        #expect(d(["TERM": "xterm-256color"]).graphics == .cells)
        // Answers when the environment says nothing (over ssh only TERM travels).
        #expect(d(["TERM": "xterm-256color"], TerminalGraphicsAnswers(kittyGraphics: true)).graphics == .kitty)
        #expect(d(["TERM": "xterm-256color"], TerminalGraphicsAnswers(sixel: true)).graphics == .sixel)
        #expect(d(["TERM": "xterm-256color"], TerminalGraphicsAnswers(version: "WezTerm 20240203")).graphics == .iterm2)
        #expect(d(["TERM": "xterm-256color"], TerminalGraphicsAnswers()).graphics == .cells)
        // tmux: graphics only through passthrough, and then wrapped.
        let tmuxEnv = ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "KITTY_WINDOW_ID": "3"]
        #expect(d(tmuxEnv).graphics == .cells)
        let through = d(tmuxEnv, passthrough: true)
        #expect(through.graphics == .kitty && through.tmux)
        // --graphics overrides detection.
        #expect(d(["TERM": "xterm-kitty"], nil, .forced(.cells)).graphics == .cells)
        #expect(d(["TERM": "dumb"], nil, .forced(.kitty)).graphics == .kitty)
        #expect(GraphicsRequest(argument: "sixel") == .forced(.sixel))
        #expect(GraphicsRequest(argument: "auto") == .auto)
        #expect(GraphicsRequest(argument: "png") == nil)
    }

    @Test func layoutInTerminalPixels() {
        // 640×360 in 120×40 cells of 10×20 px: fits once, shown at its own size, centred.
        let l = RenderLayout.compute(canvasWidth: 640, canvasHeight: 360, columns: 120, rows: 40,
                                     cell: RenderSize(width: 10, height: 20))
        #expect(l.size == RenderSize(width: 640, height: 360))
        #expect(l.columns == 64 && l.rows == 18 && l.column == 28 && l.row == 11)
        // Pixel art: whole factors, nearest neighbour.
        let p = RenderLayout.compute(canvasWidth: 16, canvasHeight: 16, columns: 120, rows: 40,
                                     cell: RenderSize(width: 10, height: 20))
        #expect(p.size == RenderSize(width: 800, height: 800))
        // Larger than the box: reduced to fit.
        let r = RenderLayout.compute(canvasWidth: 1920, canvasHeight: 1080, columns: 120, rows: 40,
                                     cell: RenderSize(width: 10, height: 20))
        #expect(r.size == RenderSize(width: 1200, height: 675))
    }

    @Test func base64RoundTrip() {
        for n in 0..<10 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            let text = bytes.withUnsafeBytes { Base64.encode($0) }
            #expect(text.count == (n + 2) / 3 * 4)
            #expect(Base64.decode(text) == bytes)
        }
        #expect(String(decoding: Array("foobar".utf8).withUnsafeBytes { Base64.encode($0) }, as: UTF8.self) == "Zm9vYmFy")
        #expect(String(decoding: Array("fo".utf8).withUnsafeBytes { Base64.encode($0) }, as: UTF8.self) == "Zm8=")
    }
}
