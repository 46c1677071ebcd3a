import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal
@testable import animplay

@Suite struct ModelErrorTests {
    /// The kind alone decides the one-line prefix and the documented exit status.
    @Test(arguments: [
        (AnimatedError.Kind.unreadable, "cannot read file: x", Int32(2)),
        (.unsupportedFormat, "unsupported format: x", 3),
        (.invalid, "invalid image: x", 3),
        (.limitExceeded, "too large: x", 4),
        (.output, "cannot write: x", 2),
        (.system, "x", 1),
    ])
    func kindDecidesPrefixAndExitStatus(_ kind: AnimatedError.Kind, _ line: String, _ code: Int32) {
        let e = AnimatedError(kind, "x")
        #expect(e.description == line)
        #expect(e.exitCode == code)
        #expect(e.message == "x")
    }

    @Test func factoriesAndPrefixKeepTheKind() {
        #expect(AnimatedError.invalid("no frames") == AnimatedError(.invalid, "no frames"))
        #expect(AnimatedError.invalid("a") != AnimatedError.limitExceeded("a"))
        let p = AnimatedError.limitExceeded("too many").prefixed("b.png: ")
        #expect(p.kind == .limitExceeded && p.message == "b.png: too many")
    }

    @Test func everyKindHasItsOwnPrefix() {
        let lines = AnimatedError.Kind.allCases.map { AnimatedError($0, "m").description }
        #expect(Set(lines).count == AnimatedError.Kind.allCases.count)
    }
}
