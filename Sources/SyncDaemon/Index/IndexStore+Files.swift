import Foundation
import GRDB
import SyncCore

extension IndexStore {
    public func localRecord(folder: String, path: String) throws -> LocalRecord? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM local_files WHERE folder_id = ? AND path = ?", arguments: [folder, path])
                .map(Self.local)
        }
    }

    public func baseRecord(folder: String, path: String) throws -> BaseRecord? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM base WHERE folder_id = ? AND path = ?", arguments: [folder, path])
                .map(Self.base)
        }
    }

    /// Live base entries at `path` or below it (what a vanished directory takes with it).
    public func liveBase(folder: String, under path: String) throws -> [BaseRecord] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM base WHERE folder_id = ? AND deleted = 0
                    AND (path = ? OR (path >= ? AND path < ?))
                    """,
                arguments: [folder, path, path + "/", path + "0"]
            ).map(Self.base)
        }
    }

    static func local(_ row: Row) throws -> LocalRecord {
        let chunks: String = row["chunks"]
        return LocalRecord(
            path: row["path"], kind: try kind(row["kind"], table: "local_files", path: row["path"]),
            inode: UInt64(bitPattern: row["inode"]), size: row["size"], mtimeNs: row["mtime_ns"],
            ctimeNs: row["ctime_ns"], mode: UInt32(truncatingIfNeeded: row["mode"] as Int64),
            contentHash: row["content_hash"], chunks: chunks.isEmpty ? [] : chunks.split(separator: ",").map(String.init),
            symlinkTarget: row["symlink_target"])
    }

    static func base(_ row: Row) throws -> BaseRecord {
        BaseRecord(
            path: row["path"], kind: try kind(row["kind"], table: "base", path: row["path"]), rev: row["rev"],
            contentHash: row["content_hash"], deleted: row["deleted"],
            mode: (row["mode"] as Int64?).map { UInt32(truncatingIfNeeded: $0) })
    }
}

extension IndexStore {
    /// An entry kind read from the index: an unknown value is a corrupt row, said as such
    /// (never read as a file).
    static func kind(_ value: String, table: String, path: String) throws -> EntryKind {
        guard let kind = EntryKind(rawValue: value) else {
            throw IndexCorruption(table: table, column: "kind", value: "\(path): \(value)", cause: "not a known entry kind")
        }
        return kind
    }
}

/// Writes of one push batch, applied in one transaction (one fsync for the lot).
struct IndexUpdate: Sendable {
    /// Committed moves, applied first: local records at `from` and below take the
    /// new name, live base records there become tombstones (see `rename`).
    var moves: [(from: String, to: String)] = []
    var locals: [LocalRecord] = []
    var removedLocals: [String] = []
    var bases: [BaseRecord] = []
    /// Downloads about to be renamed into place (written with the rest), and downloads
    /// that landed (their intents dropped).
    var intents: [DownloadIntent] = []
    var landed: [String] = []
    /// Commits whose outcome this update records (or that the server refused whole):
    /// their outbox rows go with it.
    var settledCommits: [String] = []

    func adding(local: LocalRecord) -> IndexUpdate {
        var copy = self
        copy.locals.append(local)
        return copy
    }
}

extension IndexStore {
    func apply(folder: String, _ update: IndexUpdate, in db: Database) throws {
        for move in update.moves { try rename(folder: folder, from: move.from, to: move.to, in: db) }
        for intent in update.intents { try putIntent(folder: folder, intent, in: db) }
        if !update.landed.isEmpty { try dropIntents(folder: folder, paths: update.landed, in: db) }
        if !update.settledCommits.isEmpty { try dropOutbox(folder: folder, ids: update.settledCommits, in: db) }
        let putLocal = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO local_files
            (folder_id, path, kind, inode, size, mtime_ns, ctime_ns, mode, content_hash, chunks, symlink_target)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let dropChunks = try db.cachedStatement(sql: "DELETE FROM local_chunks WHERE folder_id = ? AND path = ?")
        let putChunk = try db.cachedStatement(sql: "INSERT INTO local_chunks (folder_id, hash, path) VALUES (?, ?, ?)")
        for l in update.locals {
            try putLocal.execute(arguments: [
                folder, l.path, l.kind.rawValue, Int64(bitPattern: l.inode), l.size, l.mtimeNs, l.ctimeNs,
                Int64(l.mode), l.contentHash, l.chunks.joined(separator: ","), l.symlinkTarget,
            ])
            try dropChunks.execute(arguments: [folder, l.path])
            if l.kind == .file && l.chunks.count > 1 {
                for hash in Set(l.chunks) { try putChunk.execute(arguments: [folder, hash, l.path]) }
            }
        }
        // A removed path takes what was below it along.
        let removeLocal = try db.cachedStatement(sql: """
            DELETE FROM local_files WHERE folder_id = ? AND (path = ? OR (path >= ? AND path < ?))
            """)
        let removeChunks = try db.cachedStatement(sql: """
            DELETE FROM local_chunks WHERE folder_id = ? AND (path = ? OR (path >= ? AND path < ?))
            """)
        for path in update.removedLocals {
            try removeLocal.execute(arguments: [folder, path, path + "/", path + "0"])
            try removeChunks.execute(arguments: [folder, path, path + "/", path + "0"])
        }
        let putBase = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO base (folder_id, path, kind, rev, content_hash, deleted, mode) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for b in update.bases {
            try putBase.execute(arguments: [folder, b.path, b.kind.rawValue, b.rev, b.contentHash, b.deleted, b.mode.map { Int64($0) }])
        }
    }

    /// A committed move: the local records at `from` and below it take the new
    /// name (they describe files that moved with it); the live base records
    /// there become tombstones: the mover writes the new bases (`MoveRecords`).
    private func rename(folder: String, from: String, to: String, in db: Database) throws {
        let under = "folder_id = ? AND (path = ? OR (path >= ? AND path < ?))"
        // substr/length count characters in both: the prefix is cut exactly.
        for table in ["local_files", "local_chunks"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE \(under)", arguments: [folder, to, to + "/", to + "0"])
            try db.execute(
                sql: "UPDATE \(table) SET path = ? || substr(path, length(?) + 1) WHERE \(under)",
                arguments: [to, from, folder, from, from + "/", from + "0"])
        }
        try db.execute(sql: "DELETE FROM base WHERE \(under)", arguments: [folder, to, to + "/", to + "0"])
        // Kept as tombstones at their revs: a stale feed entry for an old path finds it seen.
        try db.execute(sql: "UPDATE base SET deleted = 1 WHERE \(under) AND deleted = 0", arguments: [folder, from, from + "/", from + "0"])
    }
}
