import PostgresNIO
import SyncCore

/// Entry and version rows in PostgreSQL: the column order every query selects, and the row →
/// `WireEntry` mapping (the SQLite side is `EntryColumns`).
enum PostgresEntryRows {
    static let select =
        "path, kind, size, mtime_ns, mode, chunks, content_hash, deleted, rev, symlink_target, device_id, moved_from, moved_to"

    typealias Columns = (
        String, String, Int64, Int64, Int64, String, String, Bool, Int64, String?, String?, String?, String?
    )

    /// Every row of `rows` as an entry; an unknown kind is a corrupt database (never sent as a file).
    static func entries(_ rows: PostgresRowSequence) async throws -> [WireEntry] {
        var entries: [WireEntry] = []
        for try await row in rows.decode(Columns.self) {
            guard let kind = EntryKind(rawValue: row.1) else {
                throw APIError.internalError("metadata database: entry \(row.0) has an unknown kind \(row.1)")
            }
            entries.append(
                WireEntry(
                    path: row.0, kind: kind, size: row.2, mtimeNs: row.3, mode: UInt32(truncatingIfNeeded: row.4),
                    chunks: row.5.isEmpty ? [] : row.5.split(separator: ",").map(String.init), contentHash: row.6,
                    deleted: row.7, rev: row.8, symlinkTarget: row.9, device: row.10, movedFrom: row.11, movedTo: row.12))
        }
        return entries
    }
}
