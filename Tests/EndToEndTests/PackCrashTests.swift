import Foundation
import SyncClient
import SyncCore
import Testing
import TestSupport

/// A real `sync-server` killed with SIGKILL while clients upload and commit in a loop:
/// after each restart, every chunk of every committed file is readable and matches.
@Suite(.serialized)
struct PackCrashTests {
    /// What a writer saw acknowledged: path → its chunks (the latest commit that returned ok).
    actor Acknowledged {
        var files: [String: [String]] = [:]
        /// The last errors writers saw, newest first (the kill, or a failure to report).
        var errors: [String] = []
        var roundOver = false
        func record(_ path: String, _ chunks: [String]) { files[path] = chunks }
        func failed(_ writer: Int, _ error: any Error) { errors.insert("writer \(writer): \(error)", at: 0) }
        func endRound(_ over: Bool) { roundOver = over }
    }

    /// Uploads and commits files until the round is over, trying again after an error (the
    /// server being killed, or a connection it left behind); the chunks of each file are sent
    /// as one batch (small) or one PUT each (a bigger one now and then).
    static func writeUntilTheRoundEnds(
        client: RemoteClient, writer: Int, round: Int, seed: UInt64, acknowledged: Acknowledged
    ) async {
        var rng = SplitMix64(seed: seed)
        var index = 0
        while await !acknowledged.roundOver {
            index += 1
            let path = "w\(writer)/r\(round)/f\(index).bin"
            let count = rng.int(in: 1...3)
            let chunks = (0..<count).map { _ in
                pseudoRandomBytes(count: rng.chance(0.1) ? rng.int(in: 300_000...1_200_000) : rng.int(in: 100...20_000), seed: rng.next())
            }
            let hashes = chunks.map { Hashing.sha256Hex($0) }
            let change = CommitChange(
                path: path, baseRev: 0, kind: .file, size: Int64(chunks.reduce(0) { $0 + $1.count }),
                mtimeNs: 1_700_000_000_000_000_000, mode: 0o644, chunks: hashes,
                contentHash: Hashing.contentHash(chunks: hashes), deleted: false)
            do {
                let missing = Set(try await client.missingChunks(folder: "docs", hashes: hashes))
                let wanted = zip(hashes, chunks).filter { missing.contains($0.0) }
                if wanted.contains(where: { $0.1.count > 100_000 }) {
                    for (hash, bytes) in wanted { try await client.putChunk(folder: "docs", hash: hash, bytes: bytes) }
                } else {
                    try await client.putChunkBatch(folder: "docs", chunks: wanted.map { (hash: $0.0, bytes: $0.1) })
                }
                let reply = try await client.commit(folder: "docs", changes: [change])
                if reply.results.first?.status == .ok { await acknowledged.record(path, hashes) }
            } catch {
                await acknowledged.failed(writer, error)
                do { try await Task.sleep(for: .milliseconds(50)) } catch { return }
            }
        }
    }

    @Test func killedWhileUploadingAndCommittingLosesNoCommittedChunk() async throws {
        let tmp = try TemporaryDirectory("pack-crash")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "writer")
        let acknowledged = Acknowledged()
        var rng = SplitMix64(seed: 0x9ac4)
        for round in 0..<5 {
            await acknowledged.endRound(false)
            try await server.start()
            let client = server.client(credential: credential)
            let writers = (0..<3).map { writer in
                let seed = rng.next()
                return Task { await Self.writeUntilTheRoundEnds(client: client, writer: writer, round: round, seed: seed, acknowledged: acknowledged) }
            }
            // Kill in the middle of the writing, once this round has acknowledged a few commits
            // (a loaded machine can take seconds for the first ones).
            let before = await acknowledged.files.count
            let busy = try await waitUntil(deadline: .now + .seconds(90), poll: .milliseconds(20)) {
                await acknowledged.files.count >= before + 5
            }
            let errors = await acknowledged.errors.prefix(3)
            #expect(busy, "round \(round): no commits acknowledged; last errors: \(errors)")
            try await Task.sleep(for: .milliseconds(rng.int(in: 0...400)))
            await server.kill9()
            await acknowledged.endRound(true)
            for writer in writers { await writer.value }
        }
        try await server.start()
        let client = server.client(credential: credential)
        let committed = await acknowledged.files
        let tree = try await client.tree(folder: "docs")
        for (path, chunks) in committed {
            #expect(tree[path]?.chunks == chunks, "\(path) acknowledged but not in the tree as committed")
        }
        var checked = 0
        for entry in tree.values {
            for hash in entry.chunks {
                let bytes = try await client.getChunk(folder: "docs", hash: hash)
                #expect(Hashing.sha256Hex(bytes) == hash, "\(entry.path): chunk \(hash) does not match")
                checked += 1
            }
        }
        await server.stop()
        let check = try await server.admin(["storage", "check"])
        #expect(check.hasPrefix("storage check: ok"), "\(check)")
        print("pack crash: 5 kills, \(committed.count) acknowledged files, \(tree.count) in the tree, \(checked) chunks read back")
    }

    @Test func storageCheckNamesARottedChunkAndExitsNonZero() async throws {
        let tmp = try TemporaryDirectory("storage-check")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "writer")
        try await server.start()
        let client = server.client(credential: credential)
        let bytes = pseudoRandomBytes(count: 10_000, seed: 4_001)
        let hash = Hashing.sha256Hex(bytes)
        try await client.putChunk(folder: "docs", hash: hash, bytes: bytes)
        let change = CommitChange(
            path: "notes/a.bin", baseRev: 0, kind: .file, size: Int64(bytes.count), mtimeNs: 1_700_000_000_000_000_000,
            mode: 0o644, chunks: [hash], contentHash: Hashing.contentHash(chunks: [hash]), deleted: false)
        _ = try await client.commit(folder: "docs", changes: [change])
        await server.stop()
        #expect(try await server.admin(["storage", "check"]).hasPrefix("storage check: ok: 1 chunk(s)"))

        // Bit rot in the middle of the only record of the only pack (a file, or an object).
        _ = try await server.damageOnlyPack(at: 40 + 5_000, with: [0xff, 0x00, 0xff])
        let result = try await Child.capture(try Binaries.path("sync-server"), ["storage", "check", "--config", server.configPath])
        #expect(result.status == 1)
        #expect(result.out.contains("docs/notes/a.bin rev 1: chunk \(hash): damaged"), "\(result.out)")
        #expect(result.err.contains("1 of 1 referenced chunk(s) missing or damaged"), "\(result.err)")
    }
}
