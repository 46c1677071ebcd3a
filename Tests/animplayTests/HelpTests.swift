import ArgumentParser
import Testing
@testable import animplay

/// Help text with every run of spaces and line breaks as one space (the wrapping is not the point).
private func oneLine(_ s: String) -> String {
    s.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
}

@Suite struct HelpTests {
    @Test func infoAndDumpHelpDoNotSpeakOfPlaying() {
        for help in [Info.helpMessage(columns: 200), Dump.helpMessage(columns: 200), Convert.helpMessage(columns: 200)].map(oneLine) {
            #expect(!help.contains("Play a still image") && !help.contains("play as the frames"))
            #expect(help.contains("are the frames of one animation") && help.contains("Take a still image as a sprite sheet"))
        }
    }

    @Test func rootHelpNamesEveryDecodingLimitForExitFour() {
        let help = oneLine(Animplay.helpMessage(columns: 200))
        #expect(help.contains("4 the image exceeds a decoding limit (see --max-pixels, --max-dimension, --max-memory-mb)"))
        #expect(help.contains("--version"))
    }

    @Test func convertHelpStatesTheDelayRule() {
        let help = oneLine(Convert.helpMessage(columns: 200))
        #expect(help.contains("no format gets a delay of 10 ms or less (browsers show those for 100 ms)"))
        #expect(help.contains("--format <format>") && help.contains("--background <RRGGBB>"))
    }

    @Test func playHelpListsCtrlZ() {
        #expect(oneLine(Play.helpMessage(columns: 200)).contains("Ctrl-Z suspend (fg resumes on the same frame)"))
    }

    @Test func sizeMessages() {
        #expect(Play.sizeProblem("0x0") == "--size must be at least 1x1 cells, got 0x0")
        #expect(Play.sizeProblem("80by24").contains("must look like WxH"))
        #expect(throws: (any Error).self) { try Play.parse(["x.gif", "--size", "0x0"]) }
    }
}
