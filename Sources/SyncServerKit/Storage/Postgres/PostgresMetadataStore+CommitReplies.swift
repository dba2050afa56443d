import Foundation
import PostgresNIO
import SyncCore

/// Replies to commits that carried a `commit_id` (see `MetadataStore+CommitReplies`).
extension PostgresMetadataStore {
    func rememberedReply(
        _ connection: PostgresConnection, folder: String, device: String, _ idempotency: (id: String, requestHash: String)
    ) async throws -> CommitResponse? {
        let rows = try await connection.query(
            """
            SELECT request_hash, response FROM commit_replies
            WHERE folder_id = \(folder) AND device_id = \(device) AND commit_id = \(idempotency.id)
            """, logger: logger)
        for try await (requestHash, response) in rows.decode((String, String).self) {
            guard requestHash == idempotency.requestHash else {
                throw APIError.badRequest("commit_id \(idempotency.id) was already used for different changes")
            }
            do {
                return try JSONDecoder().decode(CommitResponse.self, from: Data(response.utf8))
            } catch {
                throw APIError.internalError("remembered reply of commit \(idempotency.id) is unreadable", cause: error)
            }
        }
        return nil
    }

    func remember(
        _ response: CommitResponse, _ connection: PostgresConnection, folder: String, device: String,
        _ idempotency: (id: String, requestHash: String)
    ) async throws {
        let json = String(decoding: try JSONEncoder().encode(response), as: UTF8.self)
        try await connection.query(
            """
            INSERT INTO commit_replies (folder_id, device_id, commit_id, request_hash, response, created_at)
            VALUES (\(folder), \(device), \(idempotency.id), \(idempotency.requestHash), \(json), \(MetadataStore.nowSeconds()))
            """, logger: logger)
    }

    func pruneCommitReplies(before cutoff: Int64) async throws -> Int {
        try await run {
            try await client.withConnection { connection in
                try await connection.query("DELETE FROM commit_replies WHERE created_at < \(cutoff) RETURNING 1", logger: logger)
                    .collect().count
            }
        }
    }
}
