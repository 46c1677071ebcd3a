import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal
@testable import animplay

@Suite struct StatusLineTests {
    private func status(paused: Bool = false, mode: PlaybackMode = .normal) -> PlayerStatus {
        PlayerStatus(frameIndex: 2, frameCount: 100, play: 3, plays: 0, effectiveFPS: 12.345,
                     droppedFrames: 7, speed: 1.5, mode: mode, paused: paused, finished: false,
                     bufferBytes: 3 << 20, bufferBudget: 64 << 20, framesCached: 10)
    }

    @Test func stateComesFirstSoSeventyColumnsKeepIt() {
        let line = PlaybackLoop.statusLine(status(paused: true, mode: .bounce))
        #expect(line.hasPrefix(" paused bounce  frame 3/100  play 3  speed 1.50x"))
        #expect(String(line.prefix(70)).contains("paused"))
        #expect(line.hasSuffix("12.3 fps  drops 7  buffer 3.0 MB"))
        #expect(PlaybackLoop.statusLine(status()).hasPrefix(" playing  frame 3/100"))
    }

    @Test func scaleThatDoesNotFitIsSaid() {
        #expect(PlaybackLoop.statusLine(status(), scale: (shown: 2, asked: 10)).contains("  scale 2x (10x does not fit)  "))
        #expect(PlaybackLoop.statusLine(status(), scale: (shown: nil, asked: 3)).contains("reduced (3x does not fit)"))
        #expect(!PlaybackLoop.statusLine(status(), scale: (shown: 4, asked: 4)).contains("scale"))
    }
}
