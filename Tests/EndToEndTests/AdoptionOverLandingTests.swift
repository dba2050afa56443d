import Foundation
import Logging
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// This device deletes a file while another device's newer version of it is on its way here,
/// and that device then deletes it too. The tombstone prepared here meets the other's delete
/// on the server, whose reply is adopted (the server holds what it meant). The download
/// lands between the preparation and that reply: its records must stay and the path be
/// journaled again (so the server's delete, the next feed entry there, is planned against
/// them), not be replaced by the adoption, which left the file on disk with no record and
/// nothing to look at it again (convergence seed 111).
/// A real server; this device's uploader runs in this process.
@Suite(.timeLimit(.minutes(8)))
struct AdoptionOverLandingTests {
    /// A real server with devices alpha and beta; alpha's index, folder and uploader here.
    struct Rig {
        let tmp: TemporaryDirectory
        let server: ServerProcess
        let folder: String
        let index: IndexStore
        let uploader: Uploader
        let beta: RemoteClient

        static func start(_ label: String) async throws -> Rig {
            let tmp = try TemporaryDirectory(label)
            let server = try ServerProcess(dir: try tmp.sub("server"))
            let alphaCredential = try await server.provision(folder: "docs", device: "alpha")
            let betaCredential = try await server.admin(["device", "add", "--name", "beta", "--folder", "docs"])
            try await server.start()
            let folder = try tmp.sub("folder")
            let index = try IndexStore(path: try tmp.sub("state") + "/index.sqlite")
            let uploader = Uploader(
                folder: "docs", index: index, remote: server.client(credential: alphaCredential),
                preparer: Preparer(folder: FolderRoot(folder)), progress: TransferProgress(), openWrites: OpenWrites(),
                maxConcurrent: 2, logger: Logger(label: label))
            return Rig(
                tmp: tmp, server: server, folder: folder, index: index, uploader: uploader,
                beta: server.client(credential: betaCredential))
        }

        func stop() {
            server.stop()
            tmp.remove()
        }
    }

    @Test func anAdoptedDeleteLeavesADownloadThatLandedSinceToBeLookedAtAgain() async throws {
        let rig = try await Rig.start("adoption-landing")
        defer { rig.stop() }
        let (folder, index, uploader, beta) = (rig.folder, rig.index, rig.uploader, rig.beta)

        // 1. Alpha pushes `notes` (rev 1).
        try writeFile(folder + "/notes", "alpha's first version")
        let first = try await Self.pushed(["notes"], uploader: uploader, index: index)
        let r1 = try #require(first.update.bases.first?.rev)
        // 2. Beta writes its version over it (rev 2), then deletes it (rev 3).
        let bytes = Array("beta's version, a little longer".utf8)
        let hash = Hashing.sha256Hex(bytes)
        try await beta.putChunk(folder: "docs", hash: hash, bytes: bytes)
        let written = try await beta.commit(folder: "docs", changes: [
            CommitChange(
                path: "notes", baseRev: r1, kind: .file, size: Int64(bytes.count), mtimeNs: 1, mode: 0o644, chunks: [hash],
                contentHash: Hashing.contentHash(chunks: [hash]), deleted: false)
        ])
        let r2 = try #require(written.results.first?.rev)
        _ = try await beta.commit(folder: "docs", changes: [
            CommitChange(
                path: "notes", baseRev: r2, kind: .file, size: 0, mtimeNs: 0, mode: 0, chunks: [],
                contentHash: Hashing.contentHash(chunks: [hash]), deleted: true)
        ])
        // 3. Alpha deletes its `notes` and prepares the tombstone (over rev 1).
        try FileManager.default.removeItem(atPath: folder + "/notes")
        try index.journal.enqueue(folder: "docs", paths: ["notes"])
        let ops = try index.journal.claim(folder: "docs", limit: 10)
        let staged = await uploader.stage(ops)
        #expect(staged.changes["notes"]?.first?.change.baseRev == r1, "no tombstone over rev 1 was prepared: nothing is tested")
        // 4. Beta's rev 2 lands here, as a batch download does it: records, rename, landed.
        let arriving = try #require(try await beta.history(folder: "docs", path: "notes").first { $0.rev == r2 })
        try writeFile(folder + "/notes", bytes)
        guard case .found(let stat) = FolderRoot(folder).lstat("notes") else { throw TestFailure("notes is not there") }
        var landed = IndexUpdate()
        landed.bases = [arriving.baseRecord]
        landed.locals = [arriving.localRecord(stat: stat)]
        try index.records.apply(folder: "docs", landed)
        // 5. The tombstone meets beta's delete on the server; the reply is recorded.
        let result = await uploader.commit(staged, mayDelete: { _ in true })
        #expect(result.update.preparedOver["notes"] == r1, "the server's delete was not adopted: nothing is tested")
        let again = try index.journal.finish(folder: "docs", done: ops.map(\.path), update: IndexUpdateBox(result.update))

        #expect(again == ["notes"], "the path is not looked at again")
        let records = try index.records.read(folder: "docs", paths: ["notes"])
        #expect(records.base["notes"]?.rev == r2, "the download's base was replaced: \(String(describing: records.base["notes"]))")
        #expect(records.local["notes"]?.contentHash == arriving.contentHash, "the download's local record was dropped")
        #expect(FileManager.default.fileExists(atPath: folder + "/notes"))
    }

    /// This device creates a file at a path another device created and deleted; the feed
    /// brings that tombstone between the preparation and the commit, which the server applies
    /// over it. The commit is recorded: left out, the device's later delete of its file was
    /// never sent (found by kill -9 seed 2732368668, while the guard above was too strict).
    @Test func aCommitOverATombstoneTheFeedBroughtMeanwhileIsRecorded() async throws {
        let rig = try await Rig.start("applied-over-tombstone")
        defer { rig.stop() }
        let (folder, index, uploader, beta) = (rig.folder, rig.index, rig.uploader, rig.beta)
        // Beta creates `b.txt` and deletes it.
        let bytes = Array("beta's short-lived file".utf8)
        let hash = Hashing.sha256Hex(bytes)
        try await beta.putChunk(folder: "docs", hash: hash, bytes: bytes)
        let created = try await beta.commit(folder: "docs", changes: [
            CommitChange(
                path: "b.txt", baseRev: 0, kind: .file, size: Int64(bytes.count), mtimeNs: 1, mode: 0o644, chunks: [hash],
                contentHash: Hashing.contentHash(chunks: [hash]), deleted: false)
        ])
        let deleted = try await beta.commit(folder: "docs", changes: [
            CommitChange(
                path: "b.txt", baseRev: try #require(created.results.first?.rev), kind: .file, size: 0, mtimeNs: 0, mode: 0,
                chunks: [], contentHash: Hashing.contentHash(chunks: [hash]), deleted: true)
        ])
        let tombstone = try #require(try await beta.history(folder: "docs", path: "b.txt").first { $0.rev == deleted.results.first?.rev })
        // Alpha writes its own `b.txt` and prepares it (no base here yet).
        try writeFile(folder + "/b.txt", "alpha's file")
        try index.journal.enqueue(folder: "docs", paths: ["b.txt"])
        let ops = try index.journal.claim(folder: "docs", limit: 10)
        let staged = await uploader.stage(ops)
        #expect(staged.changes["b.txt"]?.first?.change.baseRev == 0, "not prepared as a new file: nothing is tested")
        // The feed adopts beta's tombstone meanwhile.
        var adopted = IndexUpdate()
        adopted.bases = [tombstone.baseRecord]
        try index.records.apply(folder: "docs", adopted)
        let result = await uploader.commit(staged, mayDelete: { _ in true })
        guard case .done(.committed(let rev)) = result.fates["b.txt"] else {
            Issue.record("the server did not apply the new file over the tombstone: \(String(describing: result.fates["b.txt"]))")
            return
        }
        let again = try index.journal.finish(folder: "docs", done: ops.map(\.path), update: IndexUpdateBox(result.update))
        #expect(again.isEmpty)
        #expect(try index.base.record(folder: "docs", path: "b.txt")?.rev == rev, "the commit was not recorded")
        #expect(try index.records.read(folder: "docs", paths: ["b.txt"]).local["b.txt"] != nil)
    }

    /// Enqueues, claims and pushes `paths`, and records the outcome.
    static func pushed(_ paths: [String], uploader: Uploader, index: IndexStore) async throws -> PushBatchResult {
        try index.journal.enqueue(folder: "docs", paths: paths)
        let ops = try index.journal.claim(folder: "docs", limit: 100)
        let result = await uploader.push(ops)
        _ = try index.journal.finish(folder: "docs", done: ops.map(\.path), update: IndexUpdateBox(result.update))
        return result
    }
}
