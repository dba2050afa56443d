import Testing

@testable import SyncDaemon

/// `Glob` over borrowed bytes: the edge cases of its pattern syntax.
struct GlobTests {
    struct Case: Sendable, CustomStringConvertible {
        var pattern: String
        var text: String
        var matches: Bool
        var description: String { "\(pattern) ~ \(text) -> \(matches)" }
    }

    static let cases: [Case] = [
        Case(pattern: "*.txt", text: "a.txt", matches: true),
        Case(pattern: "*.txt", text: "dir/a.txt", matches: false),
        Case(pattern: "*", text: "", matches: true),
        Case(pattern: "a/**/b", text: "a/b", matches: true),
        Case(pattern: "a/**/b", text: "a/x/y/b", matches: true),
        Case(pattern: "a/**", text: "a/x/y", matches: true),
        Case(pattern: "?", text: "/", matches: false),
        Case(pattern: "\\*.txt", text: "*.txt", matches: true),
        Case(pattern: "\\*.txt", text: "a.txt", matches: false),
        Case(pattern: "a[", text: "a[", matches: true),
        Case(pattern: "[x", text: "[x", matches: false),
        Case(pattern: "[]a]", text: "]", matches: true),
        Case(pattern: "[^a-c]x", text: "dx", matches: true),
        Case(pattern: "[^a-c]x", text: "bx", matches: false),
        Case(pattern: "é*", text: "été", matches: true),
        Case(pattern: "abc", text: "ab", matches: false),
        Case(pattern: "ab", text: "abc", matches: false),
    ]

    @Test(arguments: cases)
    func matches(_ c: Case) {
        #expect(Glob.match(Array(c.pattern.utf8), Array(c.text.utf8)) == c.matches)
    }
}
