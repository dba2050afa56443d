import Foundation
import GRDB
import SyncCore

/// `local_files`: what we last saw of each path on disk and what its content hashed to
/// (echo suppression, the scan's "unchanged, no need to read it", copy sources).
public struct LocalFileStore: Sendable {
    let pool: DatabasePool
    static let table = "local_files"

    public func record(folder: String, path: String) throws -> LocalRecord? {
        try pool.read { db in try record(folder: folder, path: path, in: db) }
    }

    /// A local file whose content hashes to `contentHash` (a source to copy instead of downloading).
    func file(folder: String, contentHash: String) throws -> LocalRecord? {
        try pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.columns) FROM local_files WHERE folder_id = ? AND content_hash = ? AND kind = 'file' LIMIT 1",
                arguments: [folder, contentHash]
            ).map(Self.decode)
        }
    }

    func record(folder: String, path: String, in db: Database) throws -> LocalRecord? {
        try Row.fetchOne(
            db, sql: "SELECT \(Self.columns) FROM local_files WHERE folder_id = ? AND path = ?", arguments: [folder, path]
        ).map(Self.decode)
    }

    /// The records of `paths` (those that have one), by path.
    func records(folder: String, paths: ArraySlice<String>, in db: Database) throws -> [LocalRecord] {
        let (these, arguments) = IndexSQL.paths(paths, in: folder)
        let statement = try IndexSQL.statement(db, sql: "SELECT \(Self.columns) FROM local_files WHERE \(these)", count: paths.count)
        return try Row.fetchAll(statement, arguments: arguments).map(Self.decode)
    }

    /// How `put` wrote a record, which tells what the path's chunk listing needs
    /// (`LocalChunkStore.put`).
    enum Written: Equatable {
        /// Over a record of the same kind, content and chunks: their listing stays as it is.
        case sameContent
        /// The path had no record: nothing was listed for it.
        case added
        /// Over a record of other content, kind or chunks.
        case replaced
    }

    /// Writes `records` over what their paths held; says how, record by record. A path whose
    /// recorded kind, content and chunks are the same (a download landed, a file looked at again)
    /// gets its other columns updated in place: a replacement would delete and insert its
    /// entry in `local_files_content` too, a page of that index at random for every path (a
    /// landed batch of 256 small files wrote 181 pages to the WAL that way, 15 this way). A
    /// new path is inserted; only a path whose content changed is replaced. Each statement is
    /// tried only when the one before it changed nothing.
    func put(folder: String, _ records: [LocalRecord], in db: Database) throws -> [Written] {
        let update = try db.cachedStatement(sql: """
            UPDATE local_files SET inode = ?, size = ?, mtime_ns = ?, ctime_ns = ?, mode = ?, symlink_target = ?,
            chunk_lengths = ?
            WHERE folder_id = ? AND path = ? AND content_hash = ? AND kind = ? AND chunks = ?
            """)
        let columns = """
            INTO local_files
            (folder_id, path, kind, inode, size, mtime_ns, ctime_ns, mode, content_hash, chunks, symlink_target,
             chunk_lengths)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        let insert = try db.cachedStatement(sql: "INSERT " + columns + " ON CONFLICT (folder_id, path) DO NOTHING")
        let replace = try db.cachedStatement(sql: "INSERT OR REPLACE " + columns)
        var written: [Written] = []
        written.reserveCapacity(records.count)
        for l in records {
            let chunks = l.chunks.joined(separator: ",")
            let lengths = l.chunkLengths.map { $0.map(String.init).joined(separator: ",") }
            try update.execute(arguments: [
                Int64(bitPattern: l.inode), l.size, l.mtimeNs, l.ctimeNs, Int64(l.mode), l.symlinkTarget, lengths,
                folder, l.path, l.contentHash, l.kind.rawValue, chunks,
            ])
            if db.changesCount > 0 {
                written.append(.sameContent)
                continue
            }
            let row: StatementArguments = [
                folder, l.path, l.kind.rawValue, Int64(bitPattern: l.inode), l.size, l.mtimeNs, l.ctimeNs,
                Int64(l.mode), l.contentHash, chunks, l.symlinkTarget, lengths,
            ]
            try insert.execute(arguments: row)
            if db.changesCount > 0 {
                written.append(.added)
                continue
            }
            try replace.execute(arguments: row)
            written.append(.replaced)
        }
        return written
    }

    /// Removes the records at `path` and below it (a removed path takes what was below it along).
    func remove(folder: String, under path: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM local_files WHERE \(IndexSQL.subtree)")
            .execute(arguments: IndexSQL.subtree(folder: folder, path))
    }

    /// A committed move: the records at `from` and below it take the new name (they
    /// describe files that moved with it); whatever was at `to` goes.
    func rename(folder: String, from: String, to: String, in db: Database) throws {
        try IndexSQL.renameSubtree(table: Self.table, folder: folder, from: from, to: to, in: db)
    }

    /// The columns `decode` reads, in its order: `SELECT \(columns) FROM local_files`.
    static let columns = "path, kind, inode, size, mtime_ns, ctime_ns, mode, content_hash, chunks, symlink_target, chunk_lengths"

    /// A row of `columns`.
    static func decode(_ row: Row) throws -> LocalRecord {
        let path: String = try row.indexValue(checkedAt: 0, "path", table: table)
        func value<Value: DatabaseValueConvertible>(_ index: Int, _ column: String) throws -> Value {
            try row.indexValue(checkedAt: index, column, table: table, path: path)
        }
        let chunks: String = try value(8, "chunks")
        let lengths: String? = try value(10, "chunk_lengths")
        return LocalRecord(
            path: path, kind: try IndexValue.kind(value(1, "kind"), table: table, path: path),
            inode: UInt64(bitPattern: try value(2, "inode")), size: try value(3, "size"), mtimeNs: try value(4, "mtime_ns"),
            ctimeNs: try value(5, "ctime_ns"), mode: try IndexValue.mode(value(6, "mode"), table: table, path: path),
            contentHash: try value(7, "content_hash"),
            chunks: chunks.isEmpty ? [] : chunks.split(separator: ",").map(String.init),
            symlinkTarget: try value(9, "symlink_target"),
            // Unreadable lengths are not known ones: the file is read when they are needed.
            chunkLengths: lengths.flatMap { text in
                let parsed = text.split(separator: ",").compactMap { Int($0) }
                return parsed.count == chunks.split(separator: ",").count ? parsed : nil
            })
    }
}
