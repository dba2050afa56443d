import Foundation
import PostgresNIO
import SyncCore

/// Replies to commits that carried a `commit_id` (see `MetadataStore+CommitReplies`).
extension PostgresMetadataStore {
    /// The remembered reply to a commit retried with its `commit_id`, if there is one.
    func rememberedReply(
        _ connection: PostgresConnection, folder: String, device: String, _ idempotency: (id: String, requestHash: String)
    ) async throws -> CommitResponse? {
        let rows = try await connection.query(
            """
            SELECT request_hash, response FROM commit_replies
            WHERE folder_id = \(folder) AND device_id = \(device) AND commit_id = \(idempotency.id)
            """, logger: logger)
        for try await (requestHash, response) in rows.decode((String, String).self) {
            return try Self.replay((requestHash, response), idempotency)
        }
        return nil
    }

    /// The remembered reply to a commit retried with its `commit_id`; a commit_id used for
    /// other changes is refused.
    static func replay(
        _ remembered: (requestHash: String, response: String), _ idempotency: (id: String, requestHash: String)
    ) throws -> CommitResponse {
        guard remembered.requestHash == idempotency.requestHash else {
            throw APIError.badRequest("commit_id \(idempotency.id) was already used for different changes")
        }
        do {
            return try JSONDecoder().decode(CommitResponse.self, from: Data(remembered.response.utf8))
        } catch {
            throw APIError.internalError("remembered reply of commit \(idempotency.id) is unreadable", cause: error)
        }
    }

    /// A reply as it is remembered.
    static func json(_ response: CommitResponse) -> String {
        String(decoding: JSONWriter.bytes(of: response, escapingSlashes: false), as: UTF8.self)
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
