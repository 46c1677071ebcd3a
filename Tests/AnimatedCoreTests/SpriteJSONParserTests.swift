import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

@Suite struct SpriteJSONParserTests {
    func parse(_ s: String) throws -> JSONValue { try JSONParser.parse(Array(s.utf8)) }

    @Test func valuesAndMemberOrder() throws {
        let v = try parse(#" { "z": [1, -2.5, 3e2, 0], "a": {"t": true, "f": false, "n": null}, "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00" } "#)
        let o = try #require(v.object)
        #expect(o.members.map(\.key) == ["z", "a", "s"])       // document order, not sorted
        #expect(o["z"] == .array([.number(1), .number(-2.5), .number(300), .number(0)]))
        #expect(o["a"]?.object?["t"] == .bool(true))
        #expect(o["a"]?.object?["n"] == .null)
        #expect(o["s"]?.string == "x\"\\/\u{8}\u{c}\n\r\té😀")
        #expect(try parse("\u{FEFF}[]") == .array([]))         // BOM skipped
        #expect(try parse("\"caf\u{e9}\"") == .string("café"))   // raw UTF-8
    }

    @Test(arguments: [
        "", " ", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a:1}", "['a']", "// c\n[]", "[01]", "[-]", "[1.]",
        "[.5]", "[1e]", "[NaN]", "[Infinity]", "[1e400]", "[tru]", "[nul]", "\"a\tb\"", "\"\\x\"", "\"\\u12\"",
        "\"\\ud800\"", "\"\\udc00x\"", "\"\\ud800\\u0041\"", "{\"a\":1,\"a\":2}", "[] []", "[", "{", "\"abc",
        "[\"\\",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(throws: AnimatedError.self) { try parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        for bad: [UInt8] in [[0x22, 0xC3, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x5B, 0xE9, 0x5D]] {
            #expect(throws: AnimatedError.self) { try JSONParser.parse(bad) }
        }
    }

    @Test func errorsSayWhere() {
        #expect(throws: AnimatedError.invalid("JSON line 3 column 5: unexpected ']', expected a value")) {
            try parse("{\n \"a\": [1,\n    ]}")
        }
        #expect(throws: AnimatedError.invalid("JSON line 1 column 9: duplicate key \"a\"")) {
            try parse("{\"a\":1, \"a\":2}")
        }
    }

    @Test func nestingAndSizeAreBounded() throws {
        let limits = JSONParser.Limits(maxBytes: 1 << 20, maxDepth: 64)
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(Array(ok.utf8), limits: limits) }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: AnimatedError.self) { try JSONParser.parse(Array(deep.utf8), limits: limits) }
        // Far deeper than any stack would survive with unbounded recursion.
        let hostile = Array(String(repeating: "{\"a\":[", count: 200_000).utf8)
        #expect(throws: AnimatedError.self) { try JSONParser.parse(hostile) }
        #expect(throws: AnimatedError.limitExceeded("JSON document of 11 bytes exceeds 10 bytes")) {
            try JSONParser.parse(Array("[1,2,3,4,5]".utf8), limits: .init(maxBytes: 10))
        }
    }

    /// Mutated atlases (bytes flipped, inserted, dropped, truncated) must parse or throw cleanly.
    @Test func mutatedAtlasesNeverCrash() throws {
        let seed = try SpriteFixtures.file("atlas/ase.json")
        var rng = TestRandom("SpriteJSONParserTests.mutatedAtlases")
        var parsed = 0, rejected = 0
        for _ in 0..<3000 {
            var b = seed
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let i = Int(rng.next() % UInt64(b.count))
                switch rng.next() % 4 {
                case 0: b[i] = UInt8(truncatingIfNeeded: rng.next())
                case 1: b.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
                case 2: b.remove(at: i)
                default: b.removeLast(b.count - i)
                }
                if b.isEmpty { break }
            }
            do {
                let atlas = try AtlasParser.parse(b)
                // What parses must be usable: frames with sane rectangles.
                #expect(!atlas.frames.isEmpty, "accepted an atlas without frames (\(rng))")
                #expect(atlas.frames.allSatisfy { $0.sheetRect.width > 0 && $0.sheetRect.height > 0 }, "empty frame rect (\(rng))")
                parsed += 1
            } catch {
                // What is refused gets a one-line message.
                #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(error) (\(rng))")
                rejected += 1
            }
        }
        #expect(rejected > 0)          // the mutations really did break documents
        #expect(parsed > 0)            // and some left them valid (changed values, truncated padding)
    }
}
