import Foundation
import GRDB
import Logging
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// A server on a fresh data directory with folder `docs` (granted to device
/// `laptop`) and folder `private` (granted to nobody).
struct Fixture {
    let tmp: TemporaryDirectory
    let server: SyncServer
    let credential: String

    static let folder = "docs"
    static let privateFolder = "private"

    static func make(
        tokenLifetime: Duration = .seconds(3600), packRotation: Int64? = nil, blobs: ServerSettings.Blobs = .filesystem
    ) async throws -> Fixture {
        let tmp = try TemporaryDirectory("server")
        let server = try await openServer(dataDir: tmp.path, tokenLifetime: tokenLifetime, packRotation: packRotation, blobs: blobs)
        try await server.admin.addFolder(folder)
        try await server.admin.addFolder(privateFolder)
        let credential = try await server.admin.addDevice(name: "laptop", folders: [folder])
        return Fixture(tmp: tmp, server: server, credential: credential)
    }

    /// Runs `body` with a fresh fixture and removes its directory afterwards.
    static func with<T>(
        tokenLifetime: Duration = .seconds(3600), packRotation: Int64? = nil, blobs: ServerSettings.Blobs = .filesystem,
        _ body: (Fixture) async throws -> T
    ) async throws -> T {
        let fixture = try await make(tokenLifetime: tokenLifetime, packRotation: packRotation, blobs: blobs)
        defer { fixture.tmp.remove() }
        return try await body(fixture)
    }

    static func openServer(
        dataDir: String, tokenLifetime: Duration = .seconds(3600), packRotation: Int64? = nil, blobs: ServerSettings.Blobs = .filesystem
    ) async throws -> SyncServer {
        var settings = ServerSettings(host: "127.0.0.1", port: 0, dataDir: dataDir, tokenLifetime: tokenLifetime, blobs: blobs)
        if let packRotation { settings.packRotationBytes = packRotation }
        return try await SyncServer.open(settings: settings, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// The same data directory opened by a new server, as after a restart (or a crash: the
    /// old server object is simply no longer used).
    func reopened(packRotation: Int64? = nil) async throws -> Fixture {
        Fixture(
            tmp: tmp, server: try await Self.openServer(dataDir: tmp.path, packRotation: packRotation, blobs: server.settings.blobs),
            credential: credential)
    }

    var dataDir: String { tmp.path }
    /// The SQLite store under the server (tests that look into its tables).
    var pool: DatabasePool {
        get throws {
            guard let sqlite = server.opened.sqlite else { throw TestFailure("this fixture's server is not on SQLite") }
            return sqlite.pool
        }
    }
    var deviceID: String { String(credential.prefix(16)) }
}

/// Builders for chunks and commit changes.
enum Make {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func hash(_ bytes: [UInt8]) -> String { Hashing.sha256Hex(bytes) }

    /// A file change made of `chunks` (their bytes, in order).
    static func file(_ path: String, base: Int64 = 0, chunks: [[UInt8]]) -> CommitChange {
        let hashes = chunks.map(hash)
        return CommitChange(
            path: path, baseRev: base, kind: .file, size: Int64(chunks.reduce(0) { $0 + $1.count }),
            mtimeNs: 1_700_000_000_000_000_000, mode: 0o644, chunks: hashes,
            contentHash: Hashing.contentHash(chunks: hashes), deleted: false)
    }

    static func tombstone(_ path: String, base: Int64) -> CommitChange {
        CommitChange(
            path: path, baseRev: base, kind: .file, size: 0, mtimeNs: 0, mode: 0o644, chunks: [],
            contentHash: Hashing.contentHash(chunks: []), deleted: true)
    }

    static func directory(_ path: String, base: Int64 = 0) -> CommitChange {
        CommitChange(
            path: path, baseRev: base, kind: .directory, size: 0, mtimeNs: 0, mode: 0o755, chunks: [],
            contentHash: Hashing.contentHash(chunks: []), deleted: false)
    }

    static func symlink(_ path: String, target: String, base: Int64 = 0) -> CommitChange {
        CommitChange(
            path: path, baseRev: base, kind: .symlink, size: Int64(target.utf8.count), mtimeNs: 0, mode: 0o777,
            chunks: [], contentHash: Hashing.sha256Hex(Array(target.utf8)), deleted: false, symlinkTarget: target)
    }
}
