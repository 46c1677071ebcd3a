// Plays an animation once in the terminal, in half-block cells: open → info → player → output.
import AnimatedCore
import AnimatedTerminal
#if canImport(Glibc)
import Glibc
#endif

let args = CommandLine.arguments.dropFirst()
guard let path = args.first else { fatalError("usage: terminal-play FILE [COLUMNS ROWS]") }
let columns = args.dropFirst().first.flatMap { Int($0) } ?? 80, rows = args.dropFirst(2).first.flatMap { Int($0) } ?? 24
do {
    let decoder = try AnimationLoader.open(path: path), info = decoder.info
    let (preparer, makeOutput) = OutputPlan.cells(.half).build(background: .terminal)
    let layout = RenderLayout.compute(canvasWidth: info.width, canvasHeight: info.height, columns: columns, rows: rows - 1)
    let player = try Player(decoder: decoder, options: PlayerOptions(plays: 1), scaler: preparer, renderSize: layout.size)
    let sink = FileDescriptorSink(fd: 1)
    let screen = SGRCellScreen(sink: sink, rows: rows, columns: columns, mode: .truecolor)
    let output = makeOutput(screen, sink, OutputPlan.CellSettings(mode: .truecolor))
    while true {
        let update = player.update()
        if let frame = update.frame { output.show(frame); output.present(at: layout, status: "frame \(frame.index + 1)") }
        if update.finished || update.error != nil { break }
        update.sleepUntilDeadline()
    }
    player.stop()
    sink.write(Array("\u{1B}[\(rows);1H\n".utf8))
} catch { print("terminal-play: \(path): \(error)"); exit(1) }
