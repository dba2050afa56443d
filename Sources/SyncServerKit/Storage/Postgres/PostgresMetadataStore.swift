import Foundation
import Logging
import NIOSSL
import PostgresNIO
import SyncCore

/// The server's metadata in PostgreSQL (`[storage] metadata = "postgres://…"`), for several
/// sync-server instances sharing one database (issue 10). The same operations and the same
/// decisions (`CommitPlan`) as the SQLite `MetadataStore`; per-folder revisions stay strictly
/// increasing and gap-free because a commit holds its folder's row lock (`FOR UPDATE`) from
/// reading the revision to its end.
final class PostgresMetadataStore: Sendable {
    let client: PostgresClient
    let logger: Logger
    let location: PostgresLocation
    private let runner: Task<Void, Never>

    /// Connects, and applies the migrations not yet applied (on a connection of their own, so
    /// that the pool's first lease comes once its `run()` is long under way).
    static func open(_ location: PostgresLocation, logger: Logger) async throws -> PostgresMetadataStore {
        let connection = try await connect(location, logger: logger)
        let store = PostgresMetadataStore(location: location, logger: logger)
        do {
            _ = try await store.run { try await PostgresMigrations.migrate(connection, logger: logger) }
        } catch {
            await close(connection, logger: logger)
            await store.shutdown()
            throw error
        }
        await close(connection, logger: logger)
        return store
    }

    private init(location: PostgresLocation, logger: Logger) {
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: location.tls)
        configuration.options.maximumConnections = 20
        configuration.options.connectTimeout = .seconds(10)
        // The server's logger as it is: its level is shared with every other copy (a reload
        // changes it), so it is not lowered here.
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.location = location
        runner = Task { await client.run() }
    }

    /// One connection made first, outside the pool: the pool would keep trying a database it
    /// cannot reach (a wrong password, a full server, nothing listening) and the start would
    /// wait forever; this says why at once.
    private static func connect(_ location: PostgresLocation, logger: Logger) async throws -> PostgresConnection {
        do {
            var configuration = PostgresConnection.Configuration(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: try location.connectionTLS)
            configuration.options.connectTimeout = .seconds(10)
            return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch let error as PSQLError {
            throw APIError.internalError("cannot use the metadata database \(location): \(describe(error))", cause: error)
        } catch {
            throw APIError.internalError("cannot use the metadata database \(location): \(error)", cause: error)
        }
    }

    /// Closes the start's own connection; a failure to close it is only logged (its work is done).
    private static func close(_ connection: PostgresConnection, logger: Logger) async {
        do { try await connection.close() } catch { logger.debug("closing the migration connection: \(error)") }
    }

    /// How long `shutdown` waits for the pool's connections to close.
    static let closeLimit: Duration = .seconds(10)

    /// Closes every connection, waiting at most `closeLimit`: a connection still leased (a
    /// request abandoned when the server stopped) must not keep the process from ending. Its
    /// work was not acknowledged, so nothing is lost when the process ends under it.
    func shutdown() async {
        runner.cancel()
        if await !Self.waitForEnd(of: runner, atMost: Self.closeLimit) {
            logger.warning("PostgreSQL connections still open \(Self.closeLimit) after the stop; leaving them to the process's end")
        }
    }

    /// True once `task` has ended; false if it still runs after `limit` (it is left running:
    /// waiting for a task's value does not end on cancellation, so this races it with a timer).
    /// The race runs in a task of its own: a stop often comes from a cancelled task (the
    /// server's run), and a cancelled iteration would return at once.
    static func waitForEnd(of task: Task<Void, Never>, atMost limit: Duration) async -> Bool {
        await Task {
            let (outcome, report) = AsyncStream<Bool>.makeStream()
            Task {
                await task.value
                report.yield(true)
            }
            let timer = Task {
                do { try await Task.sleep(for: limit) } catch { return }
                report.yield(false)
            }
            var first = outcome.makeAsyncIterator()
            let ended = await first.next() ?? false
            timer.cancel()
            report.finish()
            return ended
        }.value
    }

    var accounts: PostgresAccountStore { PostgresAccountStore(store: self) }

    /// Migrations recorded as applied, in the order they run (not by name: p10 comes after p9).
    func appliedMigrations() async throws -> [String] {
        try await run {
            var ids = Set<String>()
            for try await id in try await client.query("SELECT id FROM schema_migrations", logger: logger).decode(String.self) {
                ids.insert(id)
            }
            return PostgresMigrations.all.map(\.id).filter(ids.contains)
        }
    }

    func ping() async throws {
        try await run { try await client.query("SELECT 1", logger: logger) }
    }

    func folderRev(_ folder: String) async throws -> Int64? {
        try await run {
            for try await rev in try await client.query("SELECT rev FROM folders WHERE id = \(folder)", logger: logger)
                .decode(Int64.self)
            { return rev }
            return nil
        }
    }

    /// Runs `body`, turning the driver's errors into a sentence that names the database and
    /// what the server said (`PSQLError`'s own description hides it).
    @discardableResult
    func run<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw plain(error) }
    }

    /// What a failed transaction says: the error its body threw (an `APIError` as it was,
    /// when the rollback went through), or what the server said.
    private func plain(_ error: any Error) -> any Error {
        switch error {
        case let error as PostgresTransactionError:
            if let closure = error.closureError, error.rollbackError == nil { return plain(closure) }
            let failed = [error.beginError, error.closureError, error.rollbackError, error.commitError].compactMap { $0 }
            let said = failed.map { ($0 as? PSQLError).map(Self.describe) ?? "\($0)" }.joined(separator: "; ")
            return APIError.internalError("metadata database \(location): transaction failed: \(said)", cause: error)
        case let error as PSQLError:
            return APIError.internalError("metadata database \(location): \(Self.describe(error))", cause: error)
        default:
            return error
        }
    }

    static func describe(_ error: PSQLError) -> String {
        if let info = error.serverInfo {
            var text = info[.message] ?? "error"
            if let state = info[.sqlState] { text += " (SQLSTATE \(state))" }
            if let detail = info[.detail] { text += ": \(detail)" }
            return text
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }

    /// The SQLSTATE of a server error, if it is one.
    static func sqlState(_ error: any Error) -> String? {
        if let error = error as? PostgresTransactionError, let closure = error.closureError { return sqlState(closure) }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}

extension PostgresLocation {
    /// `sslmode` as libpq reads it: `disable`; `prefer` (the default: TLS when the server offers
    /// it), not checking the certificate; `require` (TLS or nothing), checking the certificate
    /// against `sslrootcert` when one is given, as `verify-ca` does; `verify-ca` (the
    /// certificate checked against the CAs: `sslrootcert`, else the system's); `verify-full`
    /// (the same, and the host name).
    var tls: PostgresClient.Configuration.TLS {
        switch sslMode {
        case .disable: return .disable
        case .prefer: return .prefer(tlsConfiguration)
        case .require, .verifyCA, .verifyFull: return .require(tlsConfiguration)
        }
    }

    /// The same for a single connection (the start's probe).
    var connectionTLS: PostgresConnection.Configuration.TLS {
        get throws {
            switch sslMode {
            case .disable: return .disable
            case .prefer: return .prefer(try NIOSSLContext(configuration: tlsConfiguration))
            case .require, .verifyCA, .verifyFull: return .require(try NIOSSLContext(configuration: tlsConfiguration))
            }
        }
    }

    private var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable, .prefer: configuration.certificateVerification = .none
        case .require: configuration.certificateVerification = rootCertificates == nil ? .none : .noHostnameVerification
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let rootCertificates { configuration.trustRoots = .file(rootCertificates) }
        return configuration
    }
}
