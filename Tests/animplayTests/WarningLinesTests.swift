import Testing
@testable import animplay

/// One cause, one line: the warnings printed for a damaged or cut-off source.
@Suite struct WarningLinesTests {
    @Test func anEarlyEndExplainsTheTruncationsAfterIt() {
        let lines = warningLines(["truncated in the image data of frame 64", "unknown extension skipped"],
                                 problems: [64: "invalid image: frame 64: image data truncated"],
                                 endedEarly: "input ended early after 1000000 bytes (connection dropped); showing what arrived")
        #expect(lines == ["input ended early after 1000000 bytes (connection dropped); showing what arrived",
                          "unknown extension skipped"])
    }

    @Test func theDecodersTruncationExplainsTheCompositors() {
        let lines = warningLines(["truncated in the image data of frame 11"],
                                 problems: [3: "invalid image: frame 3: bad code", 11: "invalid image: frame 11: image data truncated"],
                                 endedEarly: nil)
        #expect(lines == ["truncated in the image data of frame 11", "invalid image: frame 3: bad code"])
    }

    @Test func unrelatedWarningsAllStay() {
        #expect(warningLines(["a"], problems: [1: "b", 0: "c"], endedEarly: nil) == ["a", "c", "b"])
    }
}
