import Testing
@testable import AnimatedCore
@testable import AnimatedNet
@testable import AnimatedTerminal

/// Every case of the conformance corpus, checked as `check.py` checks `animplay dump`/`info`.
@Suite struct CorpusTests {
    @Test func corpusIsPresent() {
        #expect(Corpus.cases.count == 210)
    }

    @Test(arguments: Corpus.cases(format: "gif"))
    func gifCorpus(_ c: CorpusCase) {
        #expect(Corpus.run(c) == [], "\(c.id)")
    }

    @Test(arguments: Corpus.cases(format: "apng"))
    func apngCorpus(_ c: CorpusCase) {
        #expect(Corpus.run(c) == [], "\(c.id)")
    }

    @Test(arguments: Corpus.cases(format: "webp"))
    func webpCorpus(_ c: CorpusCase) {
        #expect(Corpus.run(c) == [], "\(c.id)")
    }

    @Test(arguments: Corpus.cases)
    func randomOrderOnOneCompositorEqualsSequential(_ c: CorpusCase) {
        var rng = TestRandom("CorpusTests.randomOrder \(c.id)")
        #expect(Corpus.randomOrderMatchesSequential(c, using: &rng) == nil, "\(c.id)")
    }
}
