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
        /// A second file's ctime changes (a chown to its own owner) while the first is moved:
        /// its move finds it changed, it is planned again, and, its content, mode and mtime the
        /// same, removed after all.
        case aFileBesideIsChowned
    }

    static let dirHash = Hashing.contentHash(chunks: [])

    /// The content hash of a file holding "x" (what a rehash of the files here finds).
    static let xHash = Hashing.contentHash(chunks: FileChunker().chunk(bytes: Array("x".utf8)).chunks.map(\.hash))

    static func entry(_ path: String, kind: EntryKind, rev: Int64, deleted: Bool = false) -> WireEntry {
        WireEntry(
            path: path, kind: kind, size: kind == .directory ? 0 : 1, mtimeNs: 0, mode: kind == .directory ? 0o755 : 0o644,
            chunks: [], contentHash: kind == .directory ? dirHash : xHash, deleted: deleted, rev: rev)
    }

    @Test(arguments: Meanwhile.allCases)
    func aRunRemovesADirectoryAfterItsFilesUnlessItGotANewOne(meanwhile: Meanwhile) async throws {
        let tmp = try TemporaryDirectory("directory-delete-run")
        defer { tmp.remove() }
        let folder = try tmp.sub("folder")
        try FileManager.default.createDirectory(atPath: folder + "/d", withIntermediateDirectories: true)
        let files = meanwhile == .aFileBesideIsChowned ? ["d/x.txt", "d/y.txt"] : ["d/x.txt"]
        for file in files { try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/" + file)) }
        let index = try IndexStore(path: tmp.path + "/index.sqlite")
        let root = FolderRoot(folder)
        var synced = IndexUpdate()
        for (path, kind) in [("d", EntryKind.directory)] + files.map({ ($0, EntryKind.file) }) {
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
                #expect(FileManager.default.createFile(atPath: folder + "/d/new.txt", contents: Data("new".utf8)))
            }
        case .theFileCannotBeMoved:
            materializer.beforeTrashMove = {
                try? FileManager.default.createDirectory(atPath: trash + "/" + stamp, withIntermediateDirectories: true)
                #expect(FileManager.default.createFile(atPath: trash + "/" + stamp + "/d", contents: Data()))
            }
        case .aFileBesideIsChowned:
            // (y goes first: children in descending order.)
            materializer.beforeTrashMove = {
                if FileManager.default.fileExists(atPath: folder + "/d/y.txt") { _ = chown(folder + "/d/x.txt", getuid(), getgid()) }
            }
        }
        let logger = Logger(label: "directory-delete-run-test")
        // Never reached: deletes send nothing (nothing listens there).
        let remote = RemoteClient(baseURL: "http://127.0.0.1:9", credential: "none", logger: logger)
        let applier = RemoteApplier(
            folder: "f", index: index, remote: remote, materializer: materializer, progress: TransferProgress(), logger: logger)
        var pending = PendingDeletes()
        let tombstones = files.reversed().map { Self.entry($0, kind: .file, rev: 2, deleted: true) } + [Self.entry("d", kind: .directory, rev: 2, deleted: true)]
        for tombstone in tombstones {
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
            // The directory's retry comes alone (its file's is due later): still kept, as long
            // as its file's delete is kept for a retry.
            try index.retries.hold(folder: "f", outcome.failed.filter { $0.entry.path == "d/x.txt" }, delay: { _ in 60 })
            var alone = PendingDeletes()
            alone.add(try #require(try applier.planDelete(Self.entry("d", kind: .directory, rev: 2, deleted: true))))
            var retried = RemoteApplier.Outcome()
            await applier.recordDeletes(&alone, device: "other", stamp: stamp, into: &retried)
            #expect(retried.failed.map(\.entry.path) == ["d"] && retried.pushes.isEmpty, "\(retried.failed) \(retried.pushes)")
            #expect(try index.records.read(folder: "f", paths: ["d"]).local["d"] != nil)
            return
        }
        if meanwhile == .aFileBesideIsChowned {
            // The file planned again (nothing of it the planner compares changed: removed), then
            // the directory after it: removed too, not pushed back empty.
            #expect(!FileManager.default.fileExists(atPath: folder + "/d"))
            #expect(outcome.pushes.isEmpty, "an empty directory is pushed back: \(outcome.pushes)")
            #expect(outcome.errors.isEmpty, "\(outcome.errors)")
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
