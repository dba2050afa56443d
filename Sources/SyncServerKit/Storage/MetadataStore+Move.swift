import GRDB
import SyncCore

/// A move, applied inside a commit's transaction: the source entry and every
/// live entry below it reappear under the destination with their content
/// (each a new revision carrying `moved_from`), then the old paths become
/// tombstones, children first. Arrivals come before departures in the feed,
/// so a device reading it never sees the content gone before it is back.
extension CommitStatements {
    func move(
        _ change: CommitChange, from: String, folder: String, rev: inout Int64, device: String, now: Int64
    ) throws -> CommitResult {
        let source = try Row.fetchOne(current, arguments: [folder, from]).map(EntryColumns.wireEntry)
        guard let source, !source.deleted, source.rev == change.baseRev, source.kind == change.kind else {
            return CommitResult(path: change.path, status: .conflict, rev: source?.rev ?? 0, current: source)
        }
        if let blocker = try occupant(of: change.path, folder: folder) {
            return CommitResult(path: change.path, status: .conflict, rev: blocker.rev, current: blocker)
        }
        var moving = [source]
        if source.kind == .directory {
            moving += try EntryColumns.fetchAll(
                try db.cachedStatement(sql: """
                    SELECT \(EntryColumns.select) FROM entries
                    WHERE folder_id = ? AND path >= ? AND path < ? AND deleted = 0 ORDER BY path
                    """),
                arguments: [folder, from + "/", from + "0"])
        }
        let first = rev + 1
        let targets = moving.map { RelativePath.moved($0.path, from: from, to: change.path) }
        for (entry, target) in zip(moving, targets) {
            rev += 1
            try apply(
                Self.change(entry, at: target, deleted: false), folder: folder, rev: rev, device: device, now: now,
                movedFrom: entry.path)
        }
        for (entry, target) in zip(moving, targets).reversed() {
            rev += 1
            try apply(
                Self.change(entry, at: entry.path, deleted: true), folder: folder, rev: rev, device: device, now: now,
                movedTo: target)
        }
        return CommitResult(
            path: change.path, status: .ok, rev: first, moved: moving.map { MovedEntry(path: $0.path, rev: $0.rev) })
    }

    /// The live entries at `path` and below it.
    func liveEntries(at path: String, folder: String) throws -> [WireEntry] {
        let statement = try db.cachedStatement(sql: """
            SELECT \(EntryColumns.select) FROM entries
            WHERE folder_id = ? AND deleted = 0 AND (path = ? OR (path >= ? AND path < ?))
            """)
        return try EntryColumns.fetchAll(statement, arguments: [folder, path, path + "/", path + "0"])
    }

    /// A live entry at `path` or below it: the destination of a move must be free.
    private func occupant(of path: String, folder: String) throws -> WireEntry? {
        let statement = try db.cachedStatement(sql: """
            SELECT \(EntryColumns.select) FROM entries
            WHERE folder_id = ? AND deleted = 0 AND (path = ? OR (path >= ? AND path < ?)) LIMIT 1
            """)
        return try EntryColumns.fetchAll(statement, arguments: [folder, path, path + "/", path + "0"]).first
    }

    private static func change(_ entry: WireEntry, at path: String, deleted: Bool) -> CommitChange {
        CommitChange(
            path: path, baseRev: entry.rev, kind: entry.kind, size: entry.size, mtimeNs: entry.mtimeNs,
            mode: entry.mode, chunks: entry.chunks, contentHash: entry.contentHash, deleted: deleted,
            symlinkTarget: entry.symlinkTarget)
    }
}
