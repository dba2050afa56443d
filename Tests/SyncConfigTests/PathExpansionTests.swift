import Testing
@testable import SyncConfig

@Suite struct PathExpansionTests {
    static let env = ["HOME": "/home/ann", "DATA": "/data", "SUB": "x/y", "EMPTY": ""]

    static let cases: [(String, String)] = [
        ("~", "/home/ann"),
        ("~/Sync/docs", "/home/ann/Sync/docs"),
        ("$HOME/a", "/home/ann/a"),
        ("${HOME}/a", "/home/ann/a"),
        ("${DATA}sets/b", "/datasets/b"),
        ("$DATA/$SUB/z", "/data/x/y/z"),
        ("/abs/$EMPTY/c", "/abs/c"),
        ("rel/dir", "/etc/syncd/rel/dir"),
        ("./rel/../other", "/etc/syncd/other"),
        ("../up", "/etc/up"),
        ("/a/./b/../c//d/", "/a/c/d"),
        ("/price$$list", "/price$list"),
        ("/x~y", "/x~y"),
    ]

    @Test(arguments: cases)
    func expands(input: String, expected: String) throws {
        #expect(try PathExpansion.expand(input, environment: Self.env, relativeTo: "/etc/syncd") == expected)
    }

    static let failures: [(String, PathExpansionError)] = [
        ("", .empty),
        ("$NOPE/x", .undefinedVariable("NOPE")),
        ("${NOPE}", .undefinedVariable("NOPE")),
        ("~bob/x", .userHomeNotSupported("~bob")),
        ("${HOME", .malformedVariable("${HOME")),
        ("${}", .malformedVariable("${}")),
        ("/a/$1", .malformedVariable("$1")),
        ("/a/$", .malformedVariable("$")),
        ("$EMPTY", .empty),
    ]

    @Test(arguments: failures)
    func fails(input: String, expected: PathExpansionError) {
        #expect(throws: expected) {
            try PathExpansion.expand(input, environment: Self.env, relativeTo: "/etc/syncd")
        }
    }

    @Test func tildeNeedsHome() {
        #expect(throws: PathExpansionError.homeNotSet) {
            try PathExpansion.expand("~/x", environment: [:], relativeTo: "/")
        }
    }

    @Test func relativeWithoutBaseUsesCurrentDirectory() throws {
        let result = try PathExpansion.expand("x", environment: [:])
        #expect(result.hasPrefix("/") && result.hasSuffix("/x"))
    }

    @Test func nesting() {
        #expect(PathExpansion.isSameOrInside("/a/b", "/a"))
        #expect(PathExpansion.isSameOrInside("/a", "/a"))
        #expect(!PathExpansion.isSameOrInside("/ab", "/a"))
        #expect(PathExpansion.isSameOrInside("/anything", "/"))
    }
}
