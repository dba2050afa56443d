import Foundation
import Logging
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A run of remote deletes holds a directory after its files (decision 0034). On a real
/// folder and a real index: the files go to the trash, then the directory is removed; one
/// that got a new file meanwhile stays, its tombstone recorded, and is pushed back as new;
/// one not empty because its file could not be moved is kept with it, for a retry.
struct DirectoryDeleteRunTests {
    enum Meanwhile: String, CaseIterable, Sendable {
        case nothing
        /// The user writes a new file in the directory while its run moves the files.
        case aNewFile
        /// The file's move fails (its place in the trash is taken by a file).
        case theFileCannotBeMoved
    }

    static let dirHash = Hashing.contentHash(chunks: [])

    static func entry(_ path: String, kind: EntryKind, rev: Int64, deleted: Bool = false) -> WireEntry {
        WireEntry(
            path: path, kind: kind, size: 0, mtimeNs: 0, mode: kind == .directory ? 0o755 : 0o644, chunks: [],
            contentHash: kind == .directory ? dirHash : "h-x", deleted: deleted, rev: rev)
    }

    @Test(arguments: Meanwhile.allCases)
    func aRunRemovesADirectoryAfterItsFilesUnlessItGotANewOne(meanwhile: Meanwhile) async throws {
        let tmp = try TemporaryDirectory("directory-delete-run")
        defer { tmp.remove() }
        let folder = try tmp.sub("folder")
        try FileManager.default.createDirectory(atPath: folder + "/d", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/d/x.txt"))
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        let root = FolderRoot(folder)
        var synced = IndexUpdate()
        for (path, kind) in [("d", EntryKind.directory), ("d/x.txt", .file)] {
            guard case .found(let stat) = root.lstat(path) else { throw TestFailure("no \(path)") }
            let live = Self.entry(path, kind: kind, rev: 1)
            synced.bases.append(live.baseRecord)
            synced.locals.append(live.localRecord(stat: stat))
        }
        try index.records.apply(folder: "f", synced)

        let stamp = "20260101-000000-000"
        let trash = tmp.path + "/trash"
        var materializer = Materializer(root: folder, trashRoot: trash)
        switch meanwhile {
        case .nothing: break
        case .aNewFile:
            materializer.beforeTrashMove = {
                FileManager.default.createFile(atPath: folder + "/d/new.txt", contents: Data("new".utf8))
            }
        case .theFileCannotBeMoved:
            materializer.beforeTrashMove = {
                try? FileManager.default.createDirectory(atPath: trash + "/" + stamp, withIntermediateDirectories: true)
                FileManager.default.createFile(atPath: trash + "/" + stamp + "/d", contents: Data())
            }
        }
        let logger = Logger(label: "directory-delete-run-test")
        // Never reached: deletes send nothing (nothing listens there).
        let remote = RemoteClient(baseURL: "http://127.0.0.1:9", credential: "none", logger: logger)
        let applier = RemoteApplier(
            folder: "f", index: index, remote: remote, materializer: materializer, progress: TransferProgress(), logger: logger)
        var pending = PendingDeletes()
        for tombstone in [Self.entry("d/x.txt", kind: .file, rev: 2, deleted: true), Self.entry("d", kind: .directory, rev: 2, deleted: true)] {
            pending.add(try #require(try applier.planDelete(tombstone), "\(tombstone.path) is not planned into the run"))
        }
        var outcome = RemoteApplier.Outcome()
        await applier.recordDeletes(&pending, device: "other", stamp: stamp, into: &outcome)
        #expect(try index.records.deleteIntents.removing(folder: "f").isEmpty, "every intent settled")
        let records = try index.records.read(folder: "f", paths: ["d", "d/x.txt"])

        if meanwhile == .theFileCannotBeMoved {
            // Both kept, their records back, retried later; nothing pushed back.
            #expect(Set(outcome.failed.map(\.entry.path)) == ["d/x.txt", "d"])
            #expect(outcome.applied.isEmpty && outcome.pushes.isEmpty)
            #expect(records.local["d"] != nil && records.local["d/x.txt"] != nil)
            #expect(records.base["d"]?.deleted == false && records.base["d/x.txt"]?.deleted == false)
            #expect(FileManager.default.fileExists(atPath: folder + "/d/x.txt"))
            return
        }
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
        #expect(Set(outcome.applied.map(\.path)) == ["d/x.txt", "d"])
        #expect(FileManager.default.fileExists(atPath: trash + "/" + stamp + "/d/x.txt"))
        #expect(records.base["d"]?.deleted == true && records.base["d/x.txt"]?.deleted == true)
        #expect(records.local.isEmpty)
        if meanwhile == .aNewFile {
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/d") == ["new.txt"])
            #expect(outcome.pushes == ["d"], "the directory comes back on the server")
        } else {
            #expect(!FileManager.default.fileExists(atPath: folder + "/d"))
            #expect(outcome.pushes.isEmpty)
        }
    }
}
