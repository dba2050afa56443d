import Foundation
import SyncClient
import SyncCore
import TestSupport

/// Files pushed and deleted straight through the protocol (no daemon): what the storage
/// tests fill a server with. Each file is one chunk of seeded random bytes.
struct ProtocolLoad {
    let client: RemoteClient
    let folder: String

    struct File: Sendable {
        var rev: Int64
        var hash: String
        var size: Int
    }

    /// Uploads `count` files of `size` bytes under `prefix/` (8 MiB per upload request) and
    /// commits them in one commit; path → what was committed.
    func push(prefix: String, count: Int, size: Int, seed: UInt64) async throws -> [String: File] {
        var rng = SplitMix64(seed: seed)
        var changes: [CommitChange] = []
        var batch: [(hash: String, bytes: [UInt8])] = []
        var batchBytes = 0
        for index in 0..<count {
            let bytes = pseudoRandomBytes(count: size, seed: rng.next())
            let hash = Hashing.sha256Hex(bytes)
            batch.append((hash, bytes))
            batchBytes += size
            if batchBytes >= 8 << 20 {
                try await client.putChunkBatch(folder: folder, chunks: batch)
                batch = []
                batchBytes = 0
            }
            changes.append(
                CommitChange(
                    path: "\(prefix)/f\(index).bin", baseRev: 0, kind: .file, size: Int64(size), mtimeNs: 1_700_000_000_000_000_000,
                    mode: 0o644, chunks: [hash], contentHash: Hashing.contentHash(chunks: [hash]), deleted: false))
        }
        if !batch.isEmpty { try await client.putChunkBatch(folder: folder, chunks: batch) }
        let reply = try await client.commit(folder: folder, changes: changes)
        var files: [String: File] = [:]
        for (change, result) in zip(changes, reply.results) {
            guard result.status == .ok else { throw TestFailure("commit of \(change.path): \(result.status)") }
            files[change.path] = File(rev: result.rev, hash: change.chunks[0], size: size)
        }
        return files
    }

    /// Deletes `files` (tombstones on their revs) in one commit.
    func delete(_ files: [String: File]) async throws {
        let changes = files.map { path, file in
            CommitChange(
                path: path, baseRev: file.rev, kind: .file, size: 0, mtimeNs: 0, mode: 0o644, chunks: [],
                contentHash: Hashing.contentHash(chunks: []), deleted: true)
        }
        let reply = try await client.commit(folder: folder, changes: changes)
        guard reply.results.allSatisfy({ $0.status == .ok }) else { throw TestFailure("a delete was refused") }
    }

    /// Every file reads back from the server and matches its hash.
    func expectReadable(_ files: [String: File]) async throws {
        for (path, file) in files {
            let bytes = try await client.getChunk(folder: folder, hash: file.hash)
            guard Hashing.sha256Hex(bytes) == file.hash else { throw TestFailure("\(path): chunk \(file.hash) does not match") }
        }
    }
}
