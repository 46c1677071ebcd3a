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
        #expect(help.contains("4 the image exceeds a decoding limit (--max-pixels, --max-dimension, --max-memory-mb)"))
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

    /// Every line of the EXIT STATUS table fits 80 columns as written: nothing for the help
    /// printer (or man) to wrap back to the margin; continuations are indented under the text.
    @Test func exitStatusLinesFitEightyColumns() {
        let help = Animplay.helpMessage(columns: 80)
        let table = help.split(separator: "\n", omittingEmptySubsequences: false)
            .drop(while: { $0 != "EXIT STATUS" }).dropFirst().prefix(while: { !$0.isEmpty })
        #expect(table.count == 11)   // 7 codes, 4 continuation lines
        for line in table { #expect(line.hasPrefix(" ") && line.count <= 80, "\(line)") }
        #expect(table.last == " 64  usage error")
    }

    /// Sizes in MiB become bytes by a shift that drops high bits: a huge value must be refused,
    /// not turned into a negative limit ("too large: ... limit -1024 KiB" for a 96x96 GIF).
    @Test func hugeMegabyteValuesAreRefusedNotWrapped() {
        let huge = String(Int.max)
        for option in ["--max-memory-mb", "--buffer-mb", "--cache-max-mb", "--max-download-mb", "--max-input-mb"] {
            do {
                _ = try Animplay.parseAsRoot(["x.gif", option, huge])
                Issue.record("\(option) \(huge) parsed")
            } catch {
                #expect(Animplay.message(for: error).contains("\(option) must be 1 to 1048576, got \(huge)"),
                        "\(Animplay.message(for: error))")
            }
        }
        #expect((try? Animplay.parseAsRoot(["x.gif", "--max-memory-mb", "1048576"])) != nil)
    }

    /// Timeouts became nanoseconds by plain multiplication: `--stall-timeout 9223372036854775807`
    /// and `--max-time` as large trapped (SIGILL) at the first progress of a download. A rate
    /// of `inf` frames a second made the display tick 0.
    @Test func hugeTimesAndRatesAreRefused() {
        let huge = String(Int.max)
        for (option, value, message) in [("--connect-timeout", huge, "--connect-timeout must be 1 to 1000000 seconds, got \(huge)"),
                                         ("--stall-timeout", huge, "--stall-timeout must be 1 to 1000000 seconds, got \(huge)"),
                                         ("--max-time", huge, "--max-time must be 0 (no limit) to 1000000 seconds, got \(huge)"),
                                         ("--stall-timeout", "0", "--stall-timeout must be 1 to 1000000 seconds, got 0"),
                                         ("--max-fps", "inf", "--max-fps must be 0.001 to 1000, got inf"),
                                         ("--max-fps", "1001", "--max-fps must be 0.001 to 1000, got 1001.0"),
                                         ("--max-fps", "1e-10", "--max-fps must be 0.001 to 1000, got 1e-10"),
                                         ("--fps", "4.9e-324", "--fps must be 0.001 to 1000, got 5e-324")] {
            do {
                _ = try Animplay.parseAsRoot(["x.gif", option, value])
                Issue.record("\(option) \(value) parsed")
            } catch {
                #expect(Animplay.message(for: error).contains(message), "\(Animplay.message(for: error))")
            }
        }
        for (option, value) in [("--stall-timeout", "1000000"), ("--max-time", "0"), ("--max-fps", "1000"), ("--max-fps", "0.001")] {
            #expect((try? Animplay.parseAsRoot(["x.gif", option, value])) != nil, "\(option) \(value)")
        }
    }

    /// A negative number is a value to validate, not an unknown option ("Missing value").
    @Test func negativeNumbersReachValidation() {
        for (args, message) in [(["x.gif", "--loop", "-1"], "--loop must be 0 (forever) or more"),
                                (["x.gif", "--speed", "-2"], "--speed must be between 0.1 and 10"),
                                (["x.gif", "--max-memory-mb", "0"], "--max-memory-mb must be 1 to 1048576, got 0"),
                                (["x.gif", "--max-pixels", "-5"], "--max-pixels must be 1 or more, got -5"),
                                (["x.gif", "--sprite", "2x2", "--fps", "-3"], "--fps must be 0.001 to 1000, got -3.0")] {
            do {
                _ = try Animplay.parseAsRoot(args)
                Issue.record("\(args) parsed")
            } catch {
                #expect(Animplay.message(for: error).contains(message), "\(Animplay.message(for: error))")
            }
        }
    }

    /// The bash script is ArgumentParser's with a wrapper for the default subcommand.
    @Test func completionScriptsWrapTheGeneratedOnes() {
        let bash = CompletionScripts.script(for: .bash)
        #expect(bash.contains("_animplay_generated() {") && bash.contains("COMP_WORDS=(\"${COMP_WORDS[0]}\" play"))
        #expect(bash.contains("play|info|dump|convert|probe|cache|help)"))
        #expect(CompletionScripts.script(for: .zsh).contains("words=(\"${words[1]}\" play"))
        #expect(CompletionScripts.script(for: .fish).contains("set -p unparsed_tokens play"))
    }
}
