import GRDB
import Logging
import PostgresNIO

/// A SQLite metadata database copied into PostgreSQL (`sync-server storage copy` to a
/// `postgres://` config): every row of every table, in one transaction that first empties the
/// target's tables, so a copy run again replaces what an interrupted one left. Rows are read in
/// primary-key order, a batch at a time, and written as one `unnest` insert per batch.
struct PostgresImport {
    let source: MetadataStore
    let target: PostgresMetadataStore
    var batchSize = 5000

    /// How many rows each table got.
    struct Counts: Equatable, Sendable {
        var rows: [String: Int] = [:]
    }

    func run() async throws -> Counts {
        try checkDeviceNames()
        let logger = target.logger
        return try await target.run {
            try await target.client.withTransaction(logger: logger) { connection in
                // No server may have started on the database since the copy was marked (a
                // start checks the mark and records where its packs are under these locks).
                try await connection.execute("LOCK TABLE storage_copy, pack_location IN EXCLUSIVE MODE", logger: logger)
                for try await _ in try await connection.query("SELECT 1 FROM pack_location", logger: logger) {
                    throw APIError.invalidArgument(
                        "a server has started on the database \(target.location) while the copy ran: stop it; storage copy fills a "
                            + "new database only (make an empty one with createdb)")
                }
                try await connection.execute(
                    PostgresQuery(unsafeSQL: "TRUNCATE \((ImportedTable.all.map(\.name) + Self.alsoEmptied).joined(separator: ", "))"),
                    logger: logger)
                var counts = Counts()
                for table in ImportedTable.all {
                    counts.rows[table.name] = try await copy(table, connection)
                }
                return counts
            }
        }
    }

    /// Tables of the target emptied too, though SQLite has nothing for them: access tokens (a
    /// SQLite server keeps them in memory). Where the packs are (`pack_location`) is empty
    /// here (checked) and recorded when the copy ends.
    static let alsoEmptied = ["access_tokens"]

    /// PostgreSQL refuses two devices of one name; a SQLite database made before names were
    /// unique (v8) may hold some. Said before anything is written, with what to do.
    private func checkDeviceNames() throws {
        let shared = try read { db in
            try String.fetchAll(db, sql: "SELECT name FROM devices GROUP BY name HAVING count(*) > 1 ORDER BY name")
        }
        guard shared.isEmpty else {
            throw APIError.invalidArgument(
                "device names must be unique in PostgreSQL, and several devices are named \(shared.joined(separator: ", ")): "
                    + "rename all but one (`sync-server device rename ID NEW-NAME --config OLD.toml`), then copy again")
        }
    }

    /// Copies `table` batch by batch (keyset pagination on its primary key); the row count.
    private func copy(_ table: ImportedTable, _ connection: PostgresConnection) async throws -> Int {
        var after: [DatabaseValue]? = nil
        var total = 0
        while true {
            let (batch, last) = try read { db in try table.batch(db, after: after, limit: batchSize) }
            guard batch.count > 0 else { return total }
            try await connection.query(try batch.insert, logger: target.logger)
            total += batch.count
            after = last
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try source.pool.read(body)
        } catch {
            throw APIError.internalError("cannot read the SQLite metadata database: \(error)", cause: error)
        }
    }
}
