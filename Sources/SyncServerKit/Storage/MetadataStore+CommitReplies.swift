import Foundation
import GRDB
import SyncCore

/// Replies to commits that carried a `commit_id`, kept for the retention
/// period: a client whose reply was lost retries with the same id and gets
/// the same answer, and nothing is applied twice (docs/protocol.md).
extension MetadataStore {
    static func rememberedReply(
        _ db: Database, folder: String, device: String, _ idempotency: (id: String, requestHash: String)
    ) throws -> CommitResponse? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT request_hash, response FROM commit_replies WHERE folder_id = ? AND device_id = ? AND commit_id = ?",
                arguments: [folder, device, idempotency.id])
        else { return nil }
        guard row[0] as String == idempotency.requestHash else {
            throw APIError.badRequest("commit_id \(idempotency.id) was already used for different changes")
        }
        do {
            return try JSONDecoder().decode(CommitResponse.self, from: Data((row[1] as String).utf8))
        } catch {
            throw APIError.internalError("remembered reply of commit \(idempotency.id) is unreadable", cause: error)
        }
    }

    static func remember(
        _ response: CommitResponse, _ db: Database, folder: String, device: String,
        _ idempotency: (id: String, requestHash: String)
    ) throws {
        let json = String(decoding: JSONWriter.bytes(of: response, escapingSlashes: false), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO commit_replies (folder_id, device_id, commit_id, request_hash, response, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [folder, device, idempotency.id, idempotency.requestHash, json, nowSeconds()])
    }

    /// Forgets replies older than `cutoff` (seconds since 1970); returns how many.
    func pruneCommitReplies(before cutoff: Int64) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM commit_replies WHERE created_at < ?", arguments: [cutoff])
            return db.changesCount
        }
    }
}
