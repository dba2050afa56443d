import GRDB
import SyncCore

/// Column order shared by every entry/version query, and the row → `WireEntry` mapping.
enum EntryColumns {
    static let select =
        "path, kind, size, mtime_ns, mode, chunks, content_hash, deleted, rev, symlink_target, device_id, moved_from, moved_to"

    /// A row with an unknown kind is a corrupt database, answered as an internal error
    /// (never sent as a file).
    static func wireEntry(_ row: Row) throws -> WireEntry {
        let chunks: String = row[5]
        let kindValue: String = row[1]
        guard let kind = EntryKind(rawValue: kindValue) else {
            let path: String = row[0]
            throw APIError.internalError("metadata database: entry \(path) has an unknown kind \(kindValue)")
        }
        return WireEntry(
            path: row[0],
            kind: kind,
            size: row[2],
            mtimeNs: row[3],
            mode: UInt32(truncatingIfNeeded: row[4] as Int64),
            chunks: chunks.isEmpty ? [] : chunks.split(separator: ",").map(String.init),
            contentHash: row[6],
            deleted: row[7],
            rev: row[8],
            symlinkTarget: row[9],
            device: row[10],
            movedFrom: row[11],
            movedTo: row[12])
    }

    static func fetchAll(_ statement: Statement, arguments: StatementArguments) throws -> [WireEntry] {
        var entries: [WireEntry] = []
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() { entries.append(try wireEntry(row)) }
        return entries
    }
}
