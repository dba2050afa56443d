import Foundation
import SyncCore
import Testing

/// `syncctl restore` brings back deleted and overwritten versions from the
/// server's history, on every device; remote deletes land in the local trash.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct RestoreTests {
    @Test func aRemoteDeleteGoesToTheTrashAndRestoreBringsItBack() async throws {
        // (Deleting most of this tiny folder is a delete wave: the guard is not what is tested here.)
        let two = try await TwoDevices.start("restore-delete", extraFolderConfig: "max_delete_fraction = 1")
        defer { two.stop() }
        try FileManager.default.createDirectory(atPath: two.a.path("notes"), withIntermediateDirectories: true)
        try writeFile(two.a.path("notes/precious.txt"), "precious")
        let dir = Hashing.contentHash(chunks: [])
        try await two.waitForBoth(["notes": dir, "notes/precious.txt": contentHash("precious")])

        // Deleted on beta, the whole directory: alpha's copy goes to alpha's trash.
        try FileManager.default.removeItem(atPath: two.b.path("notes"))
        try await two.waitForBoth([:])
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.key.hasSuffix("notes/precious.txt") }
        #expect(trashed.values.contains(contentHash("precious")), "alpha keeps the deleted file in its trash")

        let run = try await two.a.syncctl("restore", "notes/precious.txt")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("restored docs:notes/precious.txt"), "\(run.out)")
        try await two.waitForBoth(["notes": dir, "notes/precious.txt": contentHash("precious")])
    }

    @Test func anOverwrittenVersionComesBackByRev() async throws {
        let two = try await TwoDevices.start("restore-rev")
        defer { two.stop() }
        // Each edit waits until both daemons are idle: an edit that truncates the file
        // while the echo of the previous download is still being checked can commit
        // the empty intermediate state as one more version (see the closing note).
        try writeFile(two.a.path("report.txt"), "draft one")
        try await two.waitForBoth(["report.txt": contentHash("draft one")])
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        try writeFile(two.b.path("report.txt"), "draft two")
        try await two.waitForBoth(["report.txt": contentHash("draft two")])
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        try writeFile(two.a.path("report.txt"), "draft three")
        try await two.waitForBoth(["report.txt": contentHash("draft three")])

        let history = try await two.server.client(credential: two.credentialA).history(folder: "docs", path: "report.txt")
        #expect(history.map(\.contentHash) == ["draft three", "draft two", "draft one"].map { contentHash($0) })
        let first = try #require(history.last)

        // Without --rev: the version before the current one.
        var run = try await two.b.syncctl("restore", two.b.path("report.txt"))
        #expect(run.status == 0, "\(run.err)")
        try await two.waitForBoth(["report.txt": contentHash("draft two")])
        run = try await two.b.syncctl("restore", "report.txt", "--rev", "\(first.rev)")
        #expect(run.status == 0, "\(run.err)")
        try await two.waitForBoth(["report.txt": contentHash("draft one")])
        // The same restore again: the path already holds that content, nothing is committed.
        let client = two.server.client(credential: two.credentialA)
        let before = try await client.history(folder: "docs", path: "report.txt").count
        run = try await two.b.syncctl("restore", "report.txt", "--rev", "\(first.rev)")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("nothing changed"), "\(run.out)")
        #expect(try await client.history(folder: "docs", path: "report.txt").count == before)

        // Refusals are one clear line and exit 1.
        run = try await two.a.syncctl("restore", "never-existed.txt")
        #expect(run.status == 1)
        #expect(run.err.contains("no version of never-existed.txt"), "\(run.err)")
        run = try await two.a.syncctl("restore", "../outside.txt")
        #expect(run.status == 1)
        run = try await two.a.syncctl("restore", "report.txt", "--rev", "999999")
        #expect(run.status == 1)
        #expect(run.err.contains("has no version at rev 999999"), "\(run.err)")
    }
}
