import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal

/// `--graphics MODE` in a terminal whose answers show it lacks MODE: auto's choice with a
/// reason to say once; `--graphics MODE!`: the reason, as an error.
@Suite struct OutputForcedModeTests {
    let xterm = TerminalGraphicsAnswers(kittyGraphics: false, sixel: false, version: "XTerm(379)")
    let xtermSixel = TerminalGraphicsAnswers(kittyGraphics: false, sixel: true, version: "XTerm(379)")
    let kitty026 = TerminalGraphicsAnswers(kittyGraphics: true, sixel: false, version: "kitty(0.26.5)")

    func d(_ r: String, _ a: TerminalGraphicsAnswers?, env: [String: String] = ["TERM": "xterm"],
           passthrough: Bool = false) -> GraphicsPolicy.Decision {
        GraphicsPolicy.decide(GraphicsRequest(argument: r)!, env: env, answers: a, tmuxPassthrough: passthrough)
    }

    @Test func strictSuffixParses() {
        #expect(GraphicsRequest(argument: "kitty!") == .required(.kitty))
        #expect(GraphicsRequest(argument: "cells!") == .required(.cells))
        #expect(GraphicsRequest(argument: "kitty") == .forced(.kitty))
        #expect(GraphicsRequest(argument: "auto!") == nil)
        #expect(GraphicsRequest(argument: "!") == nil)
    }

    @Test func kittyInXtermFallsBackToWhatAutoPicks() {
        let plain = d("kitty", xterm)
        #expect(plain.graphics == .cells && plain.unsupported?.contains("kitty graphics query") == true)
        let vt340 = d("kitty", xtermSixel)
        #expect(vt340.graphics == .sixel && vt340.unsupported != nil)
        let strict = d("kitty!", xtermSixel)
        #expect(strict.graphics == .kitty && strict.unsupported != nil)
    }

    @Test func sixelInKitty026FallsBackToKitty() {
        let k = d("sixel", kitty026, env: ["TERM": "xterm-kitty"])
        #expect(k.graphics == .kitty && k.unsupported?.contains("sixel") == true)
        #expect(d("sixel!", kitty026, env: ["TERM": "xterm-kitty"]).unsupported != nil)
    }

    @Test func supportedOrUnknownModesAreObeyed() {
        #expect(d("sixel", xtermSixel).graphics == .sixel && d("sixel", xtermSixel).unsupported == nil)
        #expect(d("kitty!", kitty026).unsupported == nil)
        // No answers at all (a terminal that says nothing, or no probe): the user's word stands.
        #expect(d("kitty", nil).graphics == .kitty && d("kitty", nil).unsupported == nil)
        #expect(d("cells!", xterm).graphics == .cells && d("cells!", xterm).unsupported == nil)
        // iTerm2 images have no query: refused only for terminals known to lack them.
        #expect(d("iterm2", TerminalGraphicsAnswers(version: "WezTerm 20240203")).unsupported == nil)
        #expect(d("iterm2", TerminalGraphicsAnswers(version: "some-terminal 1.0")).unsupported == nil)
        #expect(d("iterm2", xterm).unsupported?.contains("XTerm(379)") == true)
    }

    /// Many terminals answer DA1 but not XTVERSION (VTE, Konsole, the pty tests' responder):
    /// nothing names a terminal without iTerm2 images, so the user's word stands (this trapped
    /// on a forced unwrap of the missing version).
    @Test func iTerm2IsObeyedWhenTheTerminalDoesNotSayWhatItIs() {
        let da1Only = TerminalGraphicsAnswers(kittyGraphics: false, sixel: true, version: nil)
        for r in ["iterm2", "iterm2!"] {
            let decision = d(r, da1Only)
            #expect(decision.graphics == .iterm2 && decision.unsupported == nil)
        }
        #expect(d("auto", da1Only).graphics == .sixel)
        #expect(d("auto", TerminalGraphicsAnswers(version: "WezTerm 20240203")).graphics == .iterm2)
    }

    @Test func tmuxWithoutPassthroughLacksEveryImageMode() {
        let env = ["TERM": "screen", "TMUX": "/tmp/t,1,0"]
        let r = d("kitty", kitty026, env: env, passthrough: false)
        #expect(r.graphics == .cells && r.unsupported?.contains("allow-passthrough") == true)
        #expect(d("kitty", kitty026, env: env, passthrough: true).unsupported == nil)
    }

    @Test func terminalWordsInTheReasonArePrintable() {
        let evil = TerminalGraphicsAnswers(version: "XTerm(1)\u{1B}]0;owned\u{07}")
        let why = d("iterm2", evil).unsupported ?? ""
        #expect(!why.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
    }
}
