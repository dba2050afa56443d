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
@Suite(.serialized, .timeLimit(.minutes(2)))
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
