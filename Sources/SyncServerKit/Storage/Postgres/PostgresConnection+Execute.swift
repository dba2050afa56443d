import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs `query` to its end, reading (and dropping) any rows it returns. A statement that
    /// returns rows is answered as soon as its rows start, and an error raised while it runs
    /// reaches only its row stream: unread, the error is lost, and the `COMMIT` that follows
    /// is answered `ROLLBACK` without an error (what the review of session 13 found in the
    /// commit's one write statement). Every statement whose rows are not wanted goes here.
    func execute(_ query: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }
}
