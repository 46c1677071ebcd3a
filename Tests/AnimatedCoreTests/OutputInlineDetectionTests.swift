import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct OutputInlineDetectionTests {
    func d(_ env: [String: String], _ answers: TerminalGraphicsAnswers? = nil) -> GraphicsProtocol {
        GraphicsPolicy.decide(.auto, env: env, answers: answers, tmuxPassthrough: false).graphics
    }

    @Test func iTerm2ByEnvironmentOrVersion() {
        #expect(d(["TERM_PROGRAM": "iTerm.app"]) == .iterm2)
        #expect(d(["TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"]) == .iterm2)   // survives ssh with SendEnv LC_*
        #expect(d(["TERM_PROGRAM": "vscode"]) == .iterm2)
        #expect(d(["TERM_PROGRAM": "WezTerm"]) == .iterm2)
        #expect(d(["TERM": "xterm-256color"], TerminalGraphicsAnswers(version: "iTerm2 3.5.0")) == .iterm2)
        #expect(d(["TERM": "xterm-256color"], TerminalGraphicsAnswers(sixel: true, version: "iTerm2 3.5.0")) == .iterm2)
    }

    @Test func sixelByDA1() {
        // xterm -ti vt340: DA1 63;1;2;4;6;9;15;16;22;28, XTVERSION XTerm(379).
        #expect(d(["TERM": "xterm"], TerminalGraphicsAnswers(sixel: true, version: "XTerm(379)")) == .sixel)
        #expect(d(["TERM": "xterm"], TerminalGraphicsAnswers(sixel: false, version: "XTerm(379)")) == .cells)
        #expect(d(["TERM": "foot"]) == .sixel)
    }
}
