import Foundation
import GRDB
import SyncCore

/// An update of one path, to be applied only over the base it was planned against.
struct GuardedUpdate: Sendable {
    var path: String
    var update: IndexUpdate
    var ifBase: BaseRecord?
}

extension IndexStore {
    /// A local file whose content hashes to `contentHash` (a source to copy instead of downloading).
    func localFile(folder: String, contentHash: String) throws -> LocalRecord? {
        try pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM local_files WHERE folder_id = ? AND content_hash = ? AND kind = 'file' LIMIT 1",
                arguments: [folder, contentHash]
            ).map(Self.local)
        }
    }

    /// Applies `update` only if the base record at `path` is still `expected`
    /// (read and written in one transaction); else throws `changedMeanwhile`.
    func record(folder: String, _ update: IndexUpdate, ifBase expected: BaseRecord?, at path: String) throws {
        let applied: Bool = try pool.write { db in
            guard try baseMatches(folder: folder, path: path, expected, in: db) else { return false }
            try apply(folder: folder, update, in: db)
            return true
        }
        guard applied else {
            throw MaterializeError(code: .changedMeanwhile, path: path, message: "its synced state changed while it was written")
        }
    }

    /// Applies each update whose path's base record is still its `ifBase`, all in one
    /// transaction (one fsync for the lot); returns the paths whose update was applied.
    func record(folder: String, guarded updates: [GuardedUpdate]) throws -> Set<String> {
        try pool.write { db in
            var applied = Set<String>()
            for item in updates where try baseMatches(folder: folder, path: item.path, item.ifBase, in: db) {
                try apply(folder: folder, item.update, in: db)
                applied.insert(item.path)
            }
            return applied
        }
    }

    /// Whether the base record at `path` is `expected` (nil: none), inside a write.
    private func baseMatches(folder: String, path: String, _ expected: BaseRecord?, in db: Database) throws -> Bool {
        let now = try Row.fetchOne(
            db, sql: "SELECT * FROM base WHERE folder_id = ? AND path = ?", arguments: [folder, path]
        ).map(Self.base)
        return now == expected
    }

    /// Puts back a path's records as they were (nil: none).
    /// A download intent of the path, if any, is done with too.
    /// `onlyOver`: put back only if the base is still the one the caller recorded (a push
    /// may have recorded a newer revision of the path since: that one stays).
    func restore(
        folder: String, path: String, local: LocalRecord?, base: BaseRecord?, onlyOver recorded: BaseRecord? = nil
    ) throws {
        var update = IndexUpdate()
        if let local { update.locals.append(local) } else { update.removedLocals.append(path) }
        if let base { update.bases.append(base) }
        update.landed = [path]
        try pool.write { db in
            if let recorded {
                guard try baseMatches(folder: folder, path: path, recorded, in: db) else {
                    try dropIntents(folder: folder, paths: [path], in: db)
                    return
                }
            }
            try apply(folder: folder, update, in: db)
            if base == nil {
                try db.execute(sql: "DELETE FROM base WHERE folder_id = ? AND path = ?", arguments: [folder, path])
            }
        }
    }

    /// Local files (of more than one chunk) that hold any of `hashes`, a few at most.
    func localFiles(folder: String, sharingChunksWith hashes: [String], limit: Int) throws -> [LocalRecord] {
        try pool.read { db in
            var paths: [String] = []
            for slice in stride(from: 0, to: hashes.count, by: 500).map({ hashes[$0..<min($0 + 500, hashes.count)] }) {
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
                paths += try String.fetchAll(
                    db, sql: "SELECT DISTINCT path FROM local_chunks WHERE folder_id = ? AND hash IN (\(marks)) LIMIT ?",
                    arguments: StatementArguments([folder] + Array(slice)) + [limit])
                if Set(paths).count >= limit { break }
            }
            return try Array(Set(paths)).sorted().prefix(limit).compactMap { path in
                try Row.fetchOne(
                    db, sql: "SELECT * FROM local_files WHERE folder_id = ? AND path = ?", arguments: [folder, path]
                ).map(Self.local)
            }
        }
    }

    /// Applies index changes outside a push (downloads, adopted revisions) in one transaction.
    func record(folder: String, _ update: IndexUpdate) throws {
        try pool.write { db in try apply(folder: folder, update, in: db) }
    }

    /// Whether a local change to `path` is queued or being pushed.
    /// A move of this device is being committed right now (its reply may be on the way).
    func hasMoveInFlight(folder: String) throws -> Bool {
        try pool.read { db in
            try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND move_from IS NOT NULL AND state = 'running')",
                arguments: [folder]) ?? false
        }
    }

    /// A move of this device is queued or being committed.
    func hasPendingMove(folder: String) throws -> Bool {
        try pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND move_from IS NOT NULL)",
                arguments: [folder]) ?? false
        }
    }

    func hasPendingPush(folder: String, path: String) throws -> Bool {
        try pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM journal WHERE folder_id = ? AND path = ?)",
                arguments: [folder, path]) ?? false
        }
    }
}

extension IndexStore {
    /// How many of these file tombstones remove content that no other live path holds.
    func countLost(folder: String, _ tombstones: [CommitChange]) throws -> Int {
        guard !tombstones.isEmpty else { return 0 }
        return try pool.read { db in
            let copy = try db.cachedStatement(sql: """
                SELECT EXISTS (SELECT 1 FROM base WHERE folder_id = ? AND content_hash = ? AND deleted = 0 AND path != ?)
                """)
            var lost = 0
            for t in tombstones where try Bool.fetchOne(copy, arguments: [folder, t.contentHash, t.path]) != true {
                lost += 1
            }
            return lost
        }
    }
}
