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

    /// The walk asks `skip` only about entries below directories it let through, so
    /// matching the entry itself (`IgnoreBox.skipsItself`) finds what the full check finds.
    @Test func skippingByNameAloneFindsWhatTheFullCheckFinds() throws {
        let tmp = try TemporaryDirectory("scan-skip")
        defer { tmp.remove() }
        let root = tmp.path
        let fm = FileManager.default
        for dir in ["a/b", "build/out", "keep/logs", ".git/objects", "own/state"] {
            try fm.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        for file in ["a/b/f.txt", "a/x.log", "keep/logs/y.log", "keep/z.txt", "build/out/o", ".git/objects/o", "own/state/db", "top.swp~"] {
            #expect(fm.createFile(atPath: root + "/" + file, contents: Data()))
        }
        let box = IgnoreBox(
            rules: IgnoreRules(config: ["*.log", "!keep/logs/y.log", "/build", ".git/"], file: []), excluded: ["own/state"])
        let full = Scanner(root: root) { box.skips($0, isDirectory: $1) }
        let itself = Scanner(root: root) { box.skipsItself($0, isDirectory: $1) }
        let expected = try full.scan().items.map(\.path).sorted()
        #expect(try itself.scan().items.map(\.path).sorted() == expected)
        #expect(expected == ["a", "a/b", "a/b/f.txt", "keep", "keep/logs", "keep/logs/y.log", "keep/z.txt", "own"])
        // A subtree scan checks the directories above its start itself.
        #expect(try itself.scan(below: "build/out").items.isEmpty)
        #expect(try itself.scan(below: "own/state").items.isEmpty)
        #expect(try itself.scan(below: "a").items.map(\.path).sorted() == ["a/b", "a/b/f.txt"])
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
