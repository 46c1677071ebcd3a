import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Real codecs through the engine: a tiny buffer and bounce order force replays and eviction,
/// and every frame drawn must equal what a fresh compositor gives for that frame.
@Suite struct PlaybackCodecTests {
    static let cases = Corpus.cases.filter {
        $0.check != "error" && $0.check != "still-or-error" && ($0.frames ?? 0) >= 2
    }

    @Test(arguments: cases)
    func bounceWithTinyBufferMatchesCompositor(_ c: CorpusCase) throws {
        let reference = try Compositor(decoder: try AnimationLoader.open(path: c.inputPath))
        let info = reference.info
        let want = (0..<info.frameCount).map { reference.frame(at: $0).snapshot() }
        let path = c.inputPath
        let time = ManualTime()
        let budget = 3 * info.width * info.height * 4
        let p = try Player(info: info, options: PlayerOptions(plays: 1, mode: .bounce, maxFPS: 0, bufferBytes: budget),
                           scaler: NearestScaler(), renderSize: RenderSize(width: info.width, height: info.height),
                           time: time, open: { () throws(AnimatedError) -> any AnimationDecoder in
                               try AnimationLoader.open(path: path)
                           })
        var drawn: [Int] = []
        var u = settle(p)
        while true {
            if let f = u.frame {
                drawn.append(f.index)
                #expect(f.pixels == want[f.index], "\(c.id) frame \(f.index)")
            }
            #expect(p.status.bufferBytes <= budget)
            if u.finished { break }
            guard let d = u.nextDeadline else { Issue.record("no deadline"); break }
            time.set(d)
            u = settle(p)
        }
        // Every position of the trip with a duration is drawn once, in order.
        let schedule = PlaybackSchedule(info: info, order: PlaybackOrder(frameCount: info.frameCount, mode: .bounce, plays: 1))
        let last = schedule.order.lastPosition!
        let expected = (0...last).filter { $0 == last || schedule.duration(of: $0) > 0 }.map { schedule.order.frame(at: $0) }
        #expect(drawn == expected, "\(c.id)")
    }
}
