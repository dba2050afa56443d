import Foundation
import Logging
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A restore's entry carries this device's id like the echo of its own push, and an op of the
/// same path may wait in the journal meanwhile (the event of a remote delete's move to the
/// trash, journaled under load): on a real index and folder.
struct RestoreEchoTests {
    /// Marked by the restore, the restored directory is made here; unmarked (a push's echo,
    /// which that push records), it is skipped as before.
    @Test(arguments: [true, false])
    func aRestoredEntryIsNoPushsEcho(restored: Bool) async throws {
        let tmp = try TemporaryDirectory("restore-echo")
        defer { tmp.remove() }
        let folder = try tmp.sub("folder")
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        let directoryHash = Hashing.contentHash(chunks: [])
        // Deleted on another device, and applied here.
        var update = IndexUpdate()
        update.bases = [BaseRecord(path: "notes", kind: .directory, rev: 3, contentHash: directoryHash, deleted: true)]
        try index.records.apply(folder: "f", update)
        try index.journal.enqueue(folder: "f", paths: ["notes"])
        let logger = Logger(label: "restore-echo-test")
        // Never reached: a directory needs no bytes (nothing listens there).
        let remote = RemoteClient(baseURL: "http://127.0.0.1:9", credential: "none", logger: logger)
        let applier = RemoteApplier(
            folder: "f", index: index, remote: remote, materializer: Materializer(root: folder, trashRoot: tmp.path + "/trash"),
            progress: TransferProgress(), logger: logger)
        if restored {
            applier.restores.begin(["notes"])
            applier.restores.committed(["notes"], revisions: ["notes": 5])
        }
        let entry = WireEntry(
            path: "notes", kind: .directory, size: 0, mtimeNs: 0, mode: 0o755, chunks: [], contentHash: directoryHash,
            deleted: false, rev: 5, device: "me")
        let outcome = await applier.apply(
            [entry], seen: applier.seenBases(of: [entry]), device: "laptop", ownDeviceId: "me", skip: { _, _ in false })
        #expect(outcome.errors.isEmpty && outcome.failed.isEmpty, "\(outcome.errors) \(outcome.failed)")
        var isDirectory: ObjCBool = false
        let made = FileManager.default.fileExists(atPath: folder + "/notes", isDirectory: &isDirectory) && isDirectory.boolValue
        #expect(made == restored)
        // The mark stays until its revision is applied (the feed settles it with the outcome),
        // then the path's entries are echoes like any other.
        #expect(applier.restores.covers("notes", rev: 5) == restored)
        applier.restores.settle(applied: outcome.applied)
        #expect(!applier.restores.covers("notes", rev: 5))
    }
}
