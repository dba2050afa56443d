import Testing

@testable import SyncCore

struct RelativePathTests {
    @Test(arguments: ["a", "a/b.txt", "dir/sub/file name", "ü/ß", ".hidden", "a/..b", "...", "a/b~"])
    func accepts(_ raw: String) throws {
        #expect(try RelativePath(validating: raw).string == raw)
    }

    @Test(arguments: ["", "/abs", "a//b", "a/", "..", "../x", "a/../b", "a/..", ".", "./a", "a\0b"])
    func rejects(_ raw: String) {
        #expect(throws: PathError.self) { try RelativePath(validating: raw) }
    }

    @Test func normalizesToNFC() throws {
        let nfd = "e\u{301}"
        #expect(try RelativePath(validating: nfd).string == "\u{e9}")
    }

    @Test func parentNameAndWithin() throws {
        let p = try RelativePath(validating: "a/b/c.txt")
        #expect(p.name == "c.txt")
        #expect(p.parent?.string == "a/b")
        #expect(p.isWithin(RelativePath(trusted: "a")))
        #expect(!p.isWithin(RelativePath(trusted: "a/b/c")))
        #expect(!RelativePath(trusted: "ab").isWithin(RelativePath(trusted: "a")))
    }
}
