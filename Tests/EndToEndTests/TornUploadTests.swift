import Foundation
import SyncClient
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A big file's chunks are read again when they go up, unhashed; the server refuses a
/// request whose bytes do not match their hash. A file rewritten between its hashing and
/// its upload is then checked chunk by chunk here: the changed chunk is not sent, the
/// others are, and the file is prepared afresh (torn). A real server.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct TornUploadTests {
    typealias Rig = QueueWaiterTests.Rig

    @Test func aBigFileRewrittenBetweenHashingAndUploadIsTornAndItsOtherChunksGoUp() async throws {
        let rig = try await Rig.start("torn-upload")
        defer { rig.stop() }
        let uploader = await rig.queue.uploader
        var bytes = pseudoRandomBytes(count: 6 << 20, seed: 42)  // beyond the in-memory limit: read again to send
        try writeFile(rig.folder + "/big.bin", bytes)
        guard case .change(let changes) = uploader.preparer.prepare(path: "big.bin", local: nil, base: nil, liveBelow: { [] })
        else {
            Issue.record("the new file was not prepared as a change")
            return
        }
        let hashes = changes.flatMap(\.change.chunks)
        #expect(hashes.count >= 3, "too few chunks to tell: \(hashes.count)")
        // Rewritten in place (its first chunk) after it was hashed.
        bytes[100] ^= 0xff
        let fd = open(rig.folder + "/big.bin", O_WRONLY)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)

        let torn = try await uploader.chunkSender.send(["big.bin": changes])
        #expect(torn == ["big.bin"])
        let client = rig.server.client(credential: rig.credential)
        let missing = try await client.missingChunks(folder: "docs", hashes: hashes)
        #expect(missing == [hashes[0]], "only the changed chunk stays behind")
    }
}

/// A batch keeps small files' bytes in memory from hashing to upload only up to its budget;
/// past it they are read again when sent, and still reach the server.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct UploadMemoryBudgetTests {
    @Test func smallFilesPastTheBudgetAreReadAgainAndStillGoUp() async throws {
        let rig = try await QueueWaiterTests.Rig.start("upload-budget")
        defer { rig.stop() }
        let paths = (0..<12).map { "f\($0).bin" }
        for (i, path) in paths.enumerated() {
            try writeFile(rig.folder + "/" + path, pseudoRandomBytes(count: 100 << 10, seed: UInt64(i)))
        }
        let ops = paths.map { JournalOp(path: $0, attempts: 0) }
        var uploader = await rig.queue.uploader
        uploader.memoryBudget = 300 << 10  // three of the twelve files

        let staged = await uploader.stage(ops)
        let sources = staged.changes.values.flatMap { $0.map(\.source) }
        let kept = sources.filter(\.isInMemory).count
        #expect(sources.count == 12)
        #expect(kept >= 1 && kept <= 4, "\(kept) files kept in memory with room for 3 (plus one per thread)")
        let result = await uploader.commit(staged, mayDelete: { _ in true })
        #expect(result.finished.count == 12, "\(result.fates)")
        let client = rig.server.client(credential: rig.credential)
        let feed = try await client.changes(folder: "docs", since: 0, limit: 100)
        #expect(Set(feed.entries.map(\.path)) == Set(paths))
    }
}
