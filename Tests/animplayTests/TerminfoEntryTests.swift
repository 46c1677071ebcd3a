import Testing
@testable import animplay

@Suite struct TerminfoEntryTests {
    /// Entries this fake machine has.
    private static let here: Set<String> = ["xterm-256color", "linux"]
    private static func exists(_ name: String) -> Bool { here.contains(name) }

    @Test func aMissingEntryIsReplacedByXterm256color() {
        #expect(TerminfoEntry.substitute(for: "xterm-kitty", exists: Self.exists) == "xterm-256color")
        #expect(TerminfoEntry.substitute(for: "xterm-ghostty", exists: Self.exists) == "xterm-256color")
    }

    @Test func anEntryThatIsHereIsUsedAsItIs() {
        #expect(TerminfoEntry.substitute(for: "linux", exists: Self.exists) == nil)
        #expect(TerminfoEntry.substitute(for: "xterm-256color", exists: Self.exists) == nil)
    }

    @Test func dumbAndNoTermGetNoSubstitute() {
        for term in ["dumb", "", nil] as [String?] {
            #expect(TerminfoEntry.substitute(for: term, exists: { _ in false }) == nil)
            #expect(TerminfoEntry.substitute(for: term, exists: { $0 == "xterm-256color" }) == nil)
        }
    }

    @Test func noSubstituteWhenTheFallbackIsMissingToo() {
        #expect(TerminfoEntry.substitute(for: "xterm-kitty", exists: { _ in false }) == nil)
    }

    @Test func refusalsNameTheTerminalOrSayTermIsUnset() {
        #expect(TerminfoEntry.refusal("foo", exists: { _ in false }) == "cannot use terminal type 'foo' (no terminfo entry?)")
        #expect(TerminfoEntry.refusal("").hasPrefix("TERM is not set"))
        // The entry is there: curses refused the window (one of 65535x65535 cells it cannot allocate).
        #expect(TerminfoEntry.refusal("xterm", window: (65535, 65535), exists: { _ in true })
                == "curses could not start on a 65535x65535 window (terminal type 'xterm')")
    }
}
