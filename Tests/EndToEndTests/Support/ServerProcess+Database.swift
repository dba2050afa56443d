import Foundation
import GRDB
import TestSupport

/// Reaching into a server's metadata database the way a fault (or an attacker past the server)
/// would: its SQLite file, or its PostgreSQL database through `psql` in the PostgreSQL pass.
/// Statements are written for both (`FALSE`, `ON CONFLICT … DO UPDATE`); values are inlined with
/// `literal`.
extension ServerProcess {
    /// Runs `sql` in one transaction; the rows of its last statement, each column as text ("" for NULL).
    @discardableResult
    func sql(_ sql: String) async throws -> [[String]] {
        guard let url = postgresURL else { return try sqliteRows(sql) }
        return try Self.rows(try await Child.capture(try Self.psql, Self.psqlArguments(url, sql), environment: Self.psqlEnvironment), sql)
    }

    /// `sql` for code that is not async (a `FaultProxy` hook, on the proxy's own thread).
    @discardableResult
    func sql(_ sql: String) throws -> [[String]] {
        guard let url = postgresURL else { return try sqliteRows(sql) }
        return try Self.rows(try Child.capture(try Self.psql, Self.psqlArguments(url, sql), environment: Self.psqlEnvironment), sql)
    }

    private static var psql: String { get throws { try PostgresServer.shared().binaries + "/psql" } }

    private static func psqlArguments(_ url: String, _ sql: String) -> [String] {
        [url, "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-1", "-c", sql]
    }

    /// Bounded like the SQLite side's busy timeout: a row the server holds is waited for
    /// 10 s, not for ever.
    private static let psqlEnvironment = ["PGCONNECT_TIMEOUT": "10", "PGOPTIONS": "-c lock_timeout=10s -c statement_timeout=60s"]

    private static func rows(_ result: (status: Int32, out: String, err: String), _ sql: String) throws -> [[String]] {
        guard result.status == 0 else { throw TestFailure("psql failed: \(result.err)\n\(sql)") }
        return result.out.split(separator: "\n", omittingEmptySubsequences: true).map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    private func sqliteRows(_ sql: String) throws -> [[String]] {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: dir + "/data/metadata.sqlite", configuration: configuration)
        return try queue.write { db in
            let statements = try db.allStatements(sql: sql)
            var rows: [[String]] = []
            while let statement = try statements.next() {
                rows = try Row.fetchAll(statement).map { row in row.databaseValues.map(Self.text) }
            }
            return rows
        }
    }

    private static func text(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return ""
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return text
        case .blob(let data): return data.base64EncodedString()
        }
    }

    /// `'text'` with quotes doubled, or NULL.
    static func literal(_ text: String?) -> String {
        text.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL"
    }

    /// Whether the server keeps its metadata in PostgreSQL (this run's second pass).
    var onPostgres: Bool { postgresURL != nil }
}
