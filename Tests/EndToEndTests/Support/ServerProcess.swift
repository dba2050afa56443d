import AsyncHTTPClient
import Foundation
import Logging
import SyncClient
import SyncCore
import TestSupport

/// A real `sync-server` process on 127.0.0.1 with its own data dir.
final class ServerProcess: @unchecked Sendable {
    let dir: String
    let port: Int
    let configPath: String
    private var process: Child?
    /// Serving https with these test certificates (nil: plain http).
    let certificates: TestCertificates?
    /// A client that trusts the test CA, when serving https.
    private let http: HTTPClient?
    var url: String { "\(certificates == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// `pinnedMetadata`: the metadata store is what this test's `[storage]` lines say (SQLite
    /// unless they name one), also in the PostgreSQL pass (`storage copy` is SQLite-only yet;
    /// several instances name their shared database).
    init(dir: String, port: Int? = nil, tls certificates: TestCertificates? = nil, pinnedMetadata: Bool = false) throws {
        self.pinnedMetadata = pinnedMetadata
        self.dir = dir
        self.port = try port ?? freePort()
        self.certificates = certificates
        http = try certificates.map { try RemoteClient.makeHTTPClient(trusting: $0.caFile) }
        configPath = dir + "/sync-server.toml"
        try writeConfig()
    }

    /// (Re)writes the config file; `storage`: more lines for its `[storage]` table (and
    /// tables after it, such as `[storage.s3]`).
    func writeConfig(storage: String = "") throws {
        let tls = certificates.map { "tls_cert = \"\($0.serverCertificate)\"\ntls_key = \"\($0.serverKey)\"" } ?? ""
        try writeFile(configPath, """
            [server]
            listen = "127.0.0.1:\(port)"
            data_dir = "\(dir)/data"
            \(tls)
            [storage]
            retention = "30d"
            \(try metadataLine())
            \(try sharedBlobs(unless: storage).line)
            \(storage)
            \(try sharedBlobs(unless: storage).table)
            """)
    }

    /// With `SYNCD_TEST_SERVER_BLOBS=s3` every server of the run that does not name its own
    /// blobs keeps its packs in the run's moto bucket, under a prefix of its own (the
    /// PostgreSQL + S3 pass of scripts/test.sh): the `blobs` line and its `[storage.s3]` table.
    private func sharedBlobs(unless storage: String) throws -> (line: String, table: String) {
        guard ProcessInfo.processInfo.environment["SYNCD_TEST_SERVER_BLOBS"] == "s3", !pinnedMetadata,
            !storage.contains("blobs =")
        else { return ("", "") }
        let bucket = try SharedMotoBucket.shared()
        let prefix = sharedPrefix ?? "srv-\(UUID().uuidString.prefix(8).lowercased())"
        sharedPrefix = prefix
        return (bucket.blobsLine(prefix: prefix), bucket.s3Table)
    }

    /// Its prefix in the run's shared bucket, when it keeps its packs there.
    private(set) var sharedPrefix: String?

    /// With `SYNCD_TEST_SERVER_METADATA=postgres` every server of the run keeps its metadata in
    /// a database of its own in the run's PostgreSQL cluster (the second end-to-end pass of
    /// scripts/test.sh); else the embedded SQLite default.
    /// The PostgreSQL database its metadata is in (set by a test that pins its own, for `sql`).
    var postgresURL: String?
    private let pinnedMetadata: Bool
    private func metadataLine() throws -> String {
        guard ProcessInfo.processInfo.environment["SYNCD_TEST_SERVER_METADATA"] == "postgres", !pinnedMetadata else { return "" }
        if postgresURL == nil {
            let name = PostgresServer.databaseName("server")
            postgresURL = try PostgresServer.shared().url(database: name) + "?sslmode=disable"
            uncreatedDatabase = name
        }
        return "metadata = \"\(postgresURL ?? "")\""
    }

    /// The database named in the config and not created yet: made before the first run of
    /// `sync-server` (`admin` or `start`), from async code, so that a server's setup holds no
    /// thread of the test process while `createdb` runs.
    private var uncreatedDatabase: String?

    /// Creates the metadata database the config names, if it is not there yet.
    func createDatabase() async throws {
        guard let name = uncreatedDatabase else { return }
        try await PostgresServer.shared().create(database: name)
        uncreatedDatabase = nil
    }

    deinit {
        do { try http?.syncShutdown() } catch { print("HTTP client shutdown: \(error)") }
    }

    /// Runs an admin verb and returns its stdout.
    @discardableResult
    func admin(_ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        try await createDatabase()
        let result = try await Child.capture(try Binaries.path("sync-server"), arguments + ["--config", configPath], environment: environment)
        guard result.status == 0 else { throw TestFailure("sync-server \(arguments) failed: \(result.err)") }
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Creates a folder and a device for it; returns the device credential.
    func provision(folder: String, device: String) async throws -> String {
        try await admin(["folder", "add", folder])
        return try await admin(["device", "add", "--name", device, "--folder", folder])
    }

    /// `environment`: extra variables (a crash point, a clock offset: see `ServerCrashPoint`
    /// and `ServerClock` in SyncServerKit). `waitUntilHealthy` false returns once it is launched.
    func start(environment: [String: String] = [:], waitUntilHealthy: Bool = true) async throws {
        // The log starts empty at each start.
        try await createDatabase()
        guard FileManager.default.createFile(atPath: dir + "/server.log", contents: nil) else {
            throw TestFailure("cannot create \(dir)/server.log")
        }
        let p = try Child.spawn(
            try Binaries.path("sync-server"), ["serve", "--config", configPath],
            environment: ProcessInfo.processInfo.environment.merging(["LOG_LEVEL": "debug"].merging(environment) { _, new in new }) {
                _, new in new
            },
            stderr: .file(dir + "/server.log"))
        process = p
        guard waitUntilHealthy else { return }
        try await eventually("sync-server answers on \(url)") { await self.healthy() }
    }

    /// Waits for the process to end by itself; the signal that ended it (nil: it exited).
    func waitForExit(timeout: Duration) async throws -> Int32? {
        guard let p = process else { throw TestFailure("sync-server is not running") }
        try await eventually("sync-server ends by itself", timeout: timeout, poll: .milliseconds(50)) { !p.isRunning }
        process = nil
        return p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil
    }

    /// Bytes of its packs: the pack files in the data directory, or its objects in the run's
    /// shared bucket (in the S3 pass).
    func packBytes() async throws -> Int64 {
        if let sharedPrefix {
            let objects = try await SharedMotoBucket.shared().client.list(prefix: sharedPrefix + "/packs/")
            return objects.reduce(0) { $0 + $1.size }
        }
        return try localPackBytes()
    }

    /// Overwrites `bytes` at `offset` of its only pack (bit rot), wherever it keeps its packs;
    /// the pack's name.
    func damageOnlyPack(at offset: Int, with bytes: [UInt8]) async throws -> String {
        if let sharedPrefix {
            let client = try SharedMotoBucket.shared().client
            let objects = try await client.list(prefix: sharedPrefix + "/packs/")
            guard objects.count == 1, let key = objects.first?.key else { throw TestFailure("not one pack: \(objects.map(\.key))") }
            var content = try await client.get(key: key)
            content.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
            try await client.put(key: key, bytes: content)
            return String(key.split(separator: "/").last ?? "")
        }
        let packs = dir + "/data/packs"
        let names = try FileManager.default.contentsOfDirectory(atPath: packs).filter { $0.hasSuffix(".pack") }
        guard names.count == 1, let pack = names.first else { throw TestFailure("not one pack: \(names)") }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: packs + "/" + pack))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: bytes)
        try handle.close()
        return pack
    }

    /// Bytes of the pack files in the data directory.
    func localPackBytes() throws -> Int64 {
        let packs = dir + "/data/packs"
        var total: Int64 = 0
        guard FileManager.default.fileExists(atPath: packs) else { return 0 }
        for name in try FileManager.default.contentsOfDirectory(atPath: packs) where name.hasSuffix(".pack") {
            guard let size = try FileManager.default.attributesOfItem(atPath: packs + "/" + name)[.size] as? Int64 else {
                throw TestFailure("no size for \(packs)/\(name)")
            }
            total += size
        }
        return total
    }

    func healthy() async -> Bool {
        do {
            let (status, _) = try await RemoteClient.probe(url + "/v1/health", http: http ?? .shared)
            return status == 200
        } catch {
            return false
        }
    }

    /// Stops it the hard way, in the middle of whatever it was doing.
    func kill9() {
        if process?.end(hard: true) == true { process = nil }
    }

    func stop() {
        if process?.end(hard: false) == true { process = nil }
    }

    /// `kill9()` and `stop()` from async code (holding no thread while it ends).
    func kill9() async {
        if await process?.end(hard: true) == true { process = nil }
    }

    func stop() async {
        if await process?.end(hard: false) == true { process = nil }
    }

    var log: String { logText(atPath: dir + "/server.log") }

    /// The running process's id (0 when it is not running).
    var pid: Int32 { process?.processIdentifier ?? 0 }

    var isRunning: Bool { process?.isRunning ?? false }

    /// A protocol client for checking what the server holds.
    func client(credential: String) -> RemoteClient {
        RemoteClient(baseURL: url, credential: credential, http: http ?? RemoteClient.sharedHTTP, logger: Logger(label: "test"))
    }
}

extension RemoteClient {
    /// The whole current tree of a folder, live entries only, from the change feed.
    func tree(folder: String) async throws -> [String: WireEntry] {
        var since: Int64 = 0
        var entries: [String: WireEntry] = [:]
        while true {
            let page = try await changes(folder: folder, since: since, limit: 10_000)
            for e in page.entries { entries[e.path] = e }
            since = page.cursor
            if !page.hasMore { break }
        }
        return entries.filter { !$0.value.deleted }
    }

    /// Every revision the feed reports, oldest first (to count commits).
    func allRevisions(folder: String) async throws -> [WireEntry] {
        var since: Int64 = 0
        var all: [WireEntry] = []
        while true {
            let page = try await changes(folder: folder, since: since, limit: 10_000)
            all += page.entries
            since = page.cursor
            if !page.hasMore { break }
        }
        return all
    }
}
