import Foundation
import Glibc
import SyncClient
import SyncCore

/// Sends the chunks of a push that the server lacks: asks once which are missing, then
/// uploads them (in batch requests of up to `batchBytes`, a big file's chunks too: decision 0029),
/// at most `maxConcurrent` requests in flight, each chunk of a big file re-read just before
/// it goes (and checked against its hash here only when the server found one that was not).
struct ChunkSender: Sendable {
    let folder: String
    let remote: RemoteClient
    let progress: TransferProgress
    let maxConcurrent: Int
    /// Small chunks go in batch requests of up to this many bytes.
    let batchBytes: Int
    let metrics: DaemonMetrics

    struct Pending: Sendable {
        var hash: String
        var owner: String
        var length: Int
        var source: ChunkSource
        var offset: Int64
    }

    /// Uploads the chunks the server lacks. Returns the op paths whose file
    /// changed under us (a re-read chunk no longer matches its hash).
    func send(_ changes: [String: [PreparedChange]]) async throws(RemoteError) -> Set<String> {
        var wanted: [String: Pending] = [:]
        for (owner, list) in changes {
            for prepared in list {
                switch prepared.source {
                case .none: continue
                case .memory(_, let refs), .file(_, _, let refs):
                    for ref in refs where wanted[ref.hash] == nil {
                        wanted[ref.hash] = Pending(
                            hash: ref.hash, owner: owner, length: ref.length, source: prepared.source, offset: ref.offset)
                    }
                }
            }
        }
        guard !wanted.isEmpty else { return [] }
        var missing: [String] = []
        let all = Array(wanted.keys)
        for start in stride(from: 0, to: all.count, by: 50_000) {
            missing += try await remote.missingChunks(folder: folder, hashes: Array(all[start..<min(start + 50_000, all.count)]))
        }
        let needed = missing.compactMap { wanted[$0] }
        var totals: [String: Int64] = [:]
        for p in needed { totals[p.owner, default: 0] += Int64(p.length) }
        for (owner, total) in totals { await progress.begin(path: owner, direction: "upload", total: total) }
        // Chunks travel in batches of up to `batchBytes`, each file's in its order (read ahead
        // in sequence; a file changed meanwhile spoils only its own units); a chunk left alone
        // in its unit goes as itself.
        var units: [[Pending]] = [[]]
        var unitSize = 0
        for p in needed.sorted(by: { ($0.owner, $0.offset) < ($1.owner, $1.offset) }) {
            if unitSize + p.length > batchBytes && !units[units.count - 1].isEmpty {
                units.append([])
                unitSize = 0
            }
            units[units.count - 1].append(p)
            unitSize += p.length
        }
        return try await upload(units: units.filter { !$0.isEmpty })
    }

    /// Runs the upload units with at most `maxConcurrent` in flight.
    private func upload(units: [[Pending]]) async throws(RemoteError) -> Set<String> {
        let outcome: Result<Set<String>, RemoteError> = await withTaskGroup(of: Result<Set<String>, RemoteError>.self) {
            group in
            var next = 0
            var torn = Set<String>()
            var failure: RemoteError?
            func addNext() {
                guard next < units.count else { return }
                let unit = units[next]
                next += 1
                group.addTask { await self.sendUnit(unit) }
            }
            for _ in 0..<max(1, maxConcurrent) { addNext() }
            for await result in group {
                switch result {
                case .success(let t): torn.formUnion(t)
                case .failure(let e): failure = failure ?? e
                }
                if failure == nil { addNext() }
            }
            if let failure { return .failure(failure) }
            return .success(torn)
        }
        return try outcome.get()
    }

    /// Sends a unit as read, unhashed: the server checks every chunk against its hash and
    /// stores nothing of a request with one that does not match (a file changed since it was
    /// hashed). Then each chunk is read again and checked here, and the others go again.
    private func sendUnit(_ unit: [Pending]) async -> Result<Set<String>, RemoteError> {
        let single = unit.count == 1
        let sent: (chunkBytes: Int, torn: Set<String>)
        do {
            let body = UploadBody(unit, single: single, verifying: false)
            try await put(body, hash: unit[0].hash)
            sent = (body.chunkBytes, body.torn)
        } catch where error.code == "hash_mismatch" {
            // (The first body is gone by now: one unit's buffer at a time.)
            let body = UploadBody(unit, single: single, verifying: true)
            do { try await put(body, hash: unit[0].hash) } catch { return .failure(error) }
            sent = (body.chunkBytes, body.torn)
        } catch {
            return .failure(error)
        }
        metrics.uploaded(bytes: sent.chunkBytes)
        for p in unit where !sent.torn.contains(p.owner) { await progress.advance(path: p.owner, by: Int64(p.length)) }
        return .success(sent.torn)
    }

    /// `hash`: the chunk of a unit of one (a lone chunk goes as itself, not as a batch).
    private func put(_ body: UploadBody, hash: String) async throws(RemoteError) {
        guard body.chunks > 0 else { return }
        if body.isBatch {
            try await remote.putChunkBatch(folder: folder, body: body.buffer)
        } else {
            try await remote.putChunk(folder: folder, hash: hash, body: body.buffer)
        }
    }
}
