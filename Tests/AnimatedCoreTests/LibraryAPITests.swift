import Testing
import AnimatedCore
import AnimatedTerminal
import AnimatedTestSupport

/// The library as a user meets it, through its public API only (no `@testable`): open → info →
/// frames → player, and the terminal output. The DocC articles quote these functions
/// (`scripts/check-examples` checks every snippet is here or in Examples/, so it compiles).
@Suite struct LibraryAPITests {
    static let bounce: String = {
        var path = #filePath
        while !path.hasSuffix("/Tests") { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/../samples/bounce.gif"
    }()

    @Test func openDescribeComposite() throws {
        let path = Self.bounce
        // Open: the format is sniffed from the bytes (GIF, APNG, WebP).
        let decoder = try AnimationLoader.open(path: path)
        // Describe: size, frames, delays and plays, from the headers.
        let info = decoder.info
        let seconds = info.frames.map { info.timing.displayMs($0.delayMs) }.reduce(0, +) / 1000
        // Composite: every frame as the browser shows it (RGBA, straight alpha).
        let compositor = try Compositor(decoder: decoder)
        var shown = 0
        for (index, canvas) in compositor.frames() {
            precondition(canvas.width == info.width && index == shown)
            shown += 1
        }
        #expect(shown == info.frameCount && info.frameCount > 1 && seconds > 0)
        // The sequence is frame(at:) in order.
        let again = try Compositor(decoder: AnimationLoader.open(path: path))
        for (index, canvas) in try Compositor(decoder: AnimationLoader.open(path: path)).frames() {
            #expect(canvas.withUnsafeBytes { Array($0) } == again.frame(at: index).withUnsafeBytes { Array($0) })
        }
    }

    @Test func playIntoATerminal() throws {
        let sink = RecordingSink()
        // Play: a player prepares frames on its own thread; the display loop draws the one due.
        let decoder = try AnimationLoader.open(path: Self.bounce), info = decoder.info
        let (preparer, makeOutput) = OutputPlan.cells(.half).build(background: .terminal)
        let layout = RenderLayout.compute(canvasWidth: info.width, canvasHeight: info.height, columns: 40, rows: 11)
        let player = try Player(decoder: decoder, options: PlayerOptions(plays: 1, speed: 10), scaler: preparer,
                                renderSize: layout.size)
        let screen = SGRCellScreen(sink: sink, rows: 12, columns: 40, mode: .truecolor)
        let output = makeOutput(screen, sink, OutputPlan.CellSettings(mode: .truecolor))
        var last = -1
        while true {
            let update = player.update()
            if let frame = update.frame {
                output.show(frame)
                output.present(at: layout, status: "frame \(frame.index + 1)")
                last = frame.index
            }
            if update.finished || update.error != nil { break }
            update.sleepUntilDeadline()
        }
        player.stop()
        #expect(last == info.frameCount - 1)
        var term = MiniTerminal(cols: 40, rows: 12)
        term.feed(sink.take())
        #expect(term.errors.isEmpty, "\(term.errors)")
        #expect(term.line(11).hasPrefix("frame \(info.frameCount)"))
    }
}
