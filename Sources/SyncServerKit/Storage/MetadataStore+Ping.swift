import GRDB

extension MetadataStore {
    /// One trivial read: the database file is there and answers (for `/v1/ready`).
    func ping() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }
}
