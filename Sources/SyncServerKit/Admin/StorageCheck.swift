import Foundation
import GRDB
import Logging
import SyncCore

/// `sync-server storage check`: every chunk that an entry or a kept version references is
/// in the chunk index, readable, and matches its hash. Read-only (safe while the server
/// runs: one database snapshot for the references and the index; a chunk that compaction
/// moved meanwhile, deleting its old pack, is looked up again and read where it is now).
public enum StorageCheck {
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var folder: String
        public var path: String
        public var rev: Int64
        public var hash: String
        public var reason: String
        public var description: String { "\(folder)/\(path) rev \(rev): chunk \(hash): \(reason)" }
    }

    public struct Report: Sendable {
        public var problems: [Problem] = []
        /// Distinct chunks referenced, and the entries and versions referencing them.
        public var chunks = 0
        public var references = 0
        public var bytes: Int64 = 0
        public var summary: String {
            let mib = String(format: "%.1f", Double(bytes) / 1_048_576)
            if problems.isEmpty {
                return "storage check: ok: \(chunks) chunk(s) (\(mib) MiB) referenced by \(references) entries and versions, all indexed, readable and matching their hashes"
            }
            let bad = Set(problems.map(\.hash)).count
            return "storage check: \(bad) of \(chunks) referenced chunk(s) missing or damaged, \(problems.count) reference(s) affected"
        }
    }

    struct Reference: Sendable {
        var folder: String
        var path: String
        var rev: Int64
    }

    public static func run(dataDir: String) async throws -> Report {
        try await run(settings: ServerSettings(dataDir: dataDir))
    }

    /// Checks the data directory and blob store of `settings`.
    public static func run(settings: ServerSettings) async throws -> Report {
        let dataDir = settings.dataDir
        if settings.metadata == .sqlite, access(settings.metadataPath, F_OK) != 0 {
            throw APIError.invalidArgument("\(settings.metadataPath) does not exist: is \(dataDir) a server's data_dir?")
        }
        let legacy = try legacyFileCount(settings.chunksPath)
        guard legacy == 0 else {
            throw APIError.invalidArgument(
                "\(settings.chunksPath) still holds \(legacy) chunk file(s) of the layout before packs: start the server once "
                    + "(it imports them into packs at start), then check again")
        }
        let logger = Logger(label: "sync-server.check", factory: { _ in SwiftLogNoOpLogHandler() })
        let opened = try await settings.openMetadata(logger: logger)
        do {
            let report = try await check(settings: settings, opened: opened, logger: logger)
            await opened.close()
            return report
        } catch {
            await opened.close()
            throw error
        }
    }

    private static func check(settings: ServerSettings, opened: OpenedMetadata, logger: Logger) async throws -> Report {
        // A copy not finished: its packs are not all there (and a start's checks would drop rows).
        try StorageCopy.refuseUnfinished(settings)
        let store = try await settings.openChunkStore(index: opened.index, logger: logger)
        let (references, locations) = try await opened.store.chunkReferences()
        var report = Report()
        report.chunks = references.count
        report.references = Set(references.values.joined().map { "\($0.folder)\u{0}\($0.rev)" }).count
        func fail(_ hash: String, _ reason: String) {
            for ref in references[hash] ?? [] {
                report.problems.append(Problem(folder: ref.folder, path: ref.path, rev: ref.rev, hash: hash, reason: reason))
            }
        }
        for hash in references.keys where locations[hash] == nil {
            fail(hash, "not in the chunk index (no pack holds it)")
        }
        let present = locations.sorted { ($0.value.pack, $0.value.offset) < ($1.value.pack, $1.value.offset) }
        for (hash, location) in present {
            report.bytes += location.length
            do {
                _ = try await store.readChecked(hash: hash, at: location, thorough: true)
            } catch let error as APIError where error.code == APIError.chunkDamagedCode {
                fail(hash, "damaged: \(error.message)")
            }
        }
        report.problems.sort { ($0.folder, $0.path, $0.rev) < ($1.folder, $1.path, $1.rev) }
        return report
    }

    /// hash → the live entries and kept versions whose content it is part of.
    static func referencedChunks(_ db: Database) throws -> [String: [Reference]] {
        var references: [String: [Reference]] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT folder_id, path, rev, chunks FROM entries WHERE deleted = 0 AND chunks != ''
                UNION
                SELECT folder_id, path, rev, chunks FROM versions WHERE deleted = 0 AND chunks != ''
                """)
        while let row = try rows.next() {
            let reference = Reference(folder: row[0], path: row[1], rev: row[2])
            let chunks: String = row[3]
            for hash in Set(chunks.split(separator: ",")) { references[String(hash), default: []].append(reference) }
        }
        return references
    }

    /// Chunk files still in the layout before packs (`chunks/ab/cd/<hash>`).
    static func legacyFileCount(_ root: String) throws -> Int {
        guard access(root, F_OK) == 0 else { return 0 }
        var count = 0
        for first in try POSIX.names(in: root) where first.utf8.count == 2 {
            for second in try POSIX.names(in: root + "/" + first) where second.utf8.count == 2 {
                count += try POSIX.names(in: "\(root)/\(first)/\(second)").filter(Hashing.isValidHex).count
            }
        }
        return count
    }
}
