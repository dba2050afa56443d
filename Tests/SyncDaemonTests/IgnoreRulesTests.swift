import Testing

@testable import SyncDaemon

struct IgnoreRulesTests {
    struct Case: Sendable, CustomStringConvertible {
        var patterns: [String]
        var path: String
        var isDirectory = false
        var ignored: Bool
        var description: String { "\(patterns) \(path) -> \(ignored)" }
    }

    static let cases: [Case] = [
        Case(patterns: ["*.swp"], path: "a/b/.x.swp", ignored: true),
        Case(patterns: ["*.swp"], path: "a/b/x.swpx", ignored: false),
        Case(patterns: [".git/"], path: ".git", isDirectory: true, ignored: true),
        Case(patterns: [".git/"], path: ".git", isDirectory: false, ignored: false),
        Case(patterns: [".git/"], path: "sub/.git/config", ignored: true),
        Case(patterns: ["/build"], path: "build/out.o", ignored: true),
        Case(patterns: ["/build"], path: "src/build", ignored: false),
        Case(patterns: ["doc/*.txt"], path: "doc/a.txt", ignored: true),
        Case(patterns: ["doc/*.txt"], path: "doc/sub/a.txt", ignored: false),
        Case(patterns: ["doc/**/*.txt"], path: "doc/sub/deep/a.txt", ignored: true),
        Case(patterns: ["doc/**/*.txt"], path: "doc/a.txt", ignored: true),
        Case(patterns: ["**/cache"], path: "x/y/cache", isDirectory: true, ignored: true),
        Case(patterns: ["logs/**"], path: "logs/a/b.log", ignored: true),
        Case(patterns: ["*.log", "!keep.log"], path: "keep.log", ignored: false),
        Case(patterns: ["*.log", "!keep.log"], path: "drop.log", ignored: true),
        Case(patterns: ["file?.txt"], path: "file1.txt", ignored: true),
        Case(patterns: ["file?.txt"], path: "file10.txt", ignored: false),
        Case(patterns: ["[abc].md"], path: "b.md", ignored: true),
        Case(patterns: ["[!abc].md"], path: "b.md", ignored: false),
        Case(patterns: ["[a-c].md"], path: "c.md", ignored: true),
        Case(patterns: ["# comment", ""], path: "# comment", ignored: false),
        Case(patterns: ["~$*"], path: "~$report.docx", ignored: true),
        Case(patterns: IgnoreRules.defaults, path: "4913", ignored: true),
        Case(patterns: IgnoreRules.defaults, path: "docs/.goutputstream-ABC123", ignored: true),
        Case(patterns: IgnoreRules.defaults, path: ".#notes.org", ignored: true),
        Case(patterns: IgnoreRules.defaults, path: "notes.txt~", ignored: true),
        Case(patterns: IgnoreRules.defaults, path: ".~lock.report.odt#", ignored: true),
        Case(patterns: IgnoreRules.defaults, path: "notes.txt", ignored: false),
    ]

    @Test(arguments: cases)
    func decides(_ c: Case) {
        #expect(IgnoreRules(patterns: c.patterns).isIgnored(c.path, isDirectory: c.isDirectory) == c.ignored)
    }
}

struct BackoffTests {
    @Test func growsExponentiallyAndCaps() {
        let b = Backoff(initial: 0.5, maximum: 60)
        #expect(b.delay(afterAttempt: 0, jitter: 0) == 0.5)
        #expect(b.delay(afterAttempt: 3, jitter: 0) == 4)
        #expect(b.delay(afterAttempt: 20, jitter: 0) == 60)
        #expect(b.delay(afterAttempt: 1000, jitter: 0) == 60)
    }

    @Test func jitterTakesUpToHalfOff() {
        let b = Backoff(initial: 1, maximum: 60)
        #expect(b.delay(afterAttempt: 2, jitter: 1) == 2)
        #expect(b.delay(afterAttempt: 2, jitter: 0.5) == 3)
    }
}

/// `syncctl explain` names the rule that ignores a path, and where it is written.
struct IgnoreRuleMatchTests {
    let rules = IgnoreRules(config: ["*.tmp"], file: ["# build output", "build/", "*.log", "!keep.log"])

    @Test func theDecidingRuleAndItsPlace() {
        #expect(rules.match("a/x.log", isDirectory: false) == .init(rule: "*.log", source: .file(line: 3), matched: "a/x.log"))
        #expect(rules.match("x.tmp", isDirectory: false) == .init(rule: "*.tmp", source: .config, matched: "x.tmp"))
        #expect(rules.match(".x.swp", isDirectory: false)?.source == .builtIn)
        // Inside an ignored directory: the directory's rule, and which directory.
        #expect(rules.match("src/build/out.o", isDirectory: false) == .init(rule: "build/", source: .file(line: 2), matched: "src/build"))
        // Taken back by a later `!` rule: not ignored, no rule.
        #expect(rules.match("keep.log", isDirectory: false) == nil)
        #expect(rules.match("notes.txt", isDirectory: false) == nil)
        #expect(rules.isIgnored("a/x.log", isDirectory: false) && !rules.isIgnored("keep.log", isDirectory: false))
    }
}
