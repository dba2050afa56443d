import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// The openat/readdir walk on a real temp tree.
struct ScannerTests {
    @Test func findsEverythingNotIgnoredAndNeverFollowsLinks() throws {
        let tmp = try TemporaryDirectory("scan")
        defer { tmp.remove() }
        let root = tmp.path
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/.git/objects", withIntermediateDirectories: true)
        #expect(fm.createFile(atPath: root + "/a/b/f.txt", contents: Data("x".utf8)))
        #expect(fm.createFile(atPath: root + "/top.swp", contents: Data()))
        #expect(fm.createFile(atPath: root + "/.git/objects/o", contents: Data()))
        try fm.createSymbolicLink(atPath: root + "/link", withDestinationPath: "/etc")
        let rules = IgnoreRules(patterns: ["*.swp", ".git/"])
        let scanner = Scanner(root: root) { path, isDirectory in rules.isIgnored(path, isDirectory: isDirectory) }
        let scanned = try scanner.scan()
        let (items, errors) = (scanned.items, scanned.errors)
        #expect(errors.isEmpty)
        let kinds = Dictionary(uniqueKeysWithValues: items.map { ($0.path, $0.stat.kind) })
        #expect(kinds == ["a": .directory, "a/b": .directory, "a/b/f.txt": .file, "link": .symlink])
        #expect(items.first { $0.path == "a/b/f.txt" }?.stat.size == 1)
    }

    @Test func missingRootIsAnError() {
        let scanner = Scanner(root: "/nonexistent-\(UUID())") { _, _ in false }
        #expect(throws: DaemonError.self) { try scanner.scan() }
        do {
            _ = try scanner.scan()
        } catch {
            #expect(error.code == .unreadableDirectory && error.errnoValue == ENOENT, "\(String(reflecting: error))")
        }
    }
}
