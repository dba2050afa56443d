import Foundation
import Logging
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// Two conflicts of one path within the same second, on a real index and folder: the second
/// copy gets the next free name instead of failing on the first copy's (the remote change
/// then waited for its retry, the folder in error meanwhile: kill seed 4040986932).
struct ConflictCopyNameTests {
    @Test func aSecondConflictInTheSameSecondGetsTheNextName() async throws {
        let tmp = try TemporaryDirectory("conflict-names")
        defer { tmp.remove() }
        let folder = try tmp.sub("folder")
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        let logger = Logger(label: "conflict-names-test")
        // Never reached: the remote versions are empty files (no chunk to fetch).
        let remote = RemoteClient(baseURL: "http://127.0.0.1:9", credential: "none", logger: logger)
        let applier = RemoteApplier(
            folder: "f", index: index, remote: remote, materializer: Materializer(root: folder, trashRoot: tmp.path + "/trash"),
            progress: TransferProgress(), logger: logger)
        let second = Date(timeIntervalSince1970: 1_795_000_000)
        let empty = Hashing.contentHash(chunks: [])
        for (i, local) in ["first local edit", "second local edit", "third local edit"].enumerated() {
            try Data(local.utf8).write(to: URL(fileURLWithPath: folder + "/n.txt"))
            let entry = WireEntry(
                path: "n.txt", kind: .file, size: 0, mtimeNs: 0, mode: 0o644, chunks: [], contentHash: empty,
                deleted: false, rev: Int64(10 + i), device: "other")
            var outcome = RemoteApplier.Outcome()
            try await applier.resolveConflict(
                entry, localHash: "local-\(i)", device: "laptop", at: second.addingTimeInterval(0.1 * Double(i)), into: &outcome)
            #expect(outcome.conflicts == 1)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.count == 4, "\(names)")
        #expect(try String(contentsOfFile: folder + "/n.txt", encoding: .utf8) == "", "the last remote version is at the path")
        let copies = names.filter { $0 != "n.txt" }
        #expect(copies.allSatisfy { $0.hasPrefix("n (conflict laptop ") && $0.hasSuffix(".txt") }, "\(copies)")
        let contents = try Set(copies.map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) })
        #expect(contents == ["first local edit", "second local edit", "third local edit"], "each local version kept once")
        let first = ConflictName.make(for: "n.txt", device: "laptop", at: second)
        #expect(copies.contains(first))
        #expect(copies.contains(ConflictName.make(for: "n.txt", device: "laptop", at: second, attempt: 2)))
        #expect(copies.contains(ConflictName.make(for: "n.txt", device: "laptop", at: second, attempt: 3)))
    }

    @Test func theNthNameCarriesItsNumberAfterTheTime() {
        let date = Date(timeIntervalSince1970: 1_763_463_600)
        #expect(ConflictName.make(for: "a/report.txt", device: "pc", at: date, attempt: 2) == "a/report (conflict pc 2025-11-18 110000 2).txt")
        #expect(ConflictName.make(for: "Makefile", device: "pc", at: date, attempt: 3) == "Makefile (conflict pc 2025-11-18 110000 3)")
        #expect(ConflictName.make(for: "Makefile", device: "pc", at: date) == "Makefile (conflict pc 2025-11-18 110000)")
    }
}
