import Foundation
import GRDB

/// `partial_downloads`: written when the engine stops, and as a big download goes (its
/// checkpoints); at the start, read and made the rows of those kept again.
struct PartialDownloadStore: Sendable {
    let pool: DatabasePool
    static let table = "partial_downloads"

    /// The folder's rows become `saved` (none kept from before).
    func save(folder: String, _ saved: [PartialDownload]) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM partial_downloads WHERE folder_id = ?", arguments: [folder])
            for partial in saved { try Self.put(partial, folder: folder, in: db) }
        }
    }

    /// `partial` becomes its path's row (a checkpoint of a download under way).
    func record(folder: String, _ partial: PartialDownload) throws {
        try pool.write { db in try Self.put(partial, folder: folder, in: db) }
    }

    /// The row of `path`, if any, is removed (its download landed or was given up).
    func remove(folder: String, path: String) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM partial_downloads WHERE folder_id = ? AND path = ?", arguments: [folder, path])
        }
    }

    private static func put(_ p: PartialDownload, folder: String, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO partial_downloads
                (folder_id, path, content_hash, staging, directory_device, directory_inode, lengths,
                 inode, size, mtime_ns, ctime_ns, mode, sealed)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ).execute(arguments: [
            folder, p.path, p.contentHash, p.staging, Int64(bitPattern: p.directory.device),
            Int64(bitPattern: p.directory.inode), p.lengths.map(String.init).joined(separator: ","),
            Int64(bitPattern: p.stat.inode), p.stat.size, p.stat.mtimeNs, p.stat.ctimeNs, Int64(p.stat.mode), p.sealed,
        ])
    }

    /// The folder's rows, removed in the same transaction, kept as of `keptAt`: what is not
    /// taken back now is not kept (its staging file is then an interrupted run's, removed by
    /// the first scan).
    func takeAll(folder: String, keptAt: ContinuousClock.Instant = .now) throws -> [PartialDownload] {
        try pool.write { db in
            let partials = try Self.read(folder: folder, keptAt: keptAt, in: db)
            try db.execute(sql: "DELETE FROM partial_downloads WHERE folder_id = ?", arguments: [folder])
            return partials
        }
    }

    /// The folder's rows, left in place.
    func all(folder: String) throws -> [PartialDownload] {
        try pool.read { db in try Self.read(folder: folder, keptAt: .now, in: db) }
    }

    private static func read(folder: String, keptAt: ContinuousClock.Instant, in db: Database) throws -> [PartialDownload] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT path, content_hash, staging, directory_device, directory_inode, lengths,
                    inode, size, mtime_ns, ctime_ns, mode, sealed
                FROM partial_downloads WHERE folder_id = ?
                """,
            arguments: [folder])
        return try rows.map { row in
            let path: String = try row.indexValue("path", table: Self.table)
            func value<T: DatabaseValueConvertible>(_ column: String) throws -> T {
                try row.indexValue(column, table: Self.table, path: path)
            }
            let lengthsText: String = try value("lengths")
            let lengths = try lengthsText.split(separator: ",").map { text in
                guard let length = Int(text), length > 0 else {
                    throw DaemonError.corruptIndex(table: Self.table, column: "lengths", value: lengthsText, path: path)
                }
                return length
            }
            let stat = FileStat(
                kind: .file, inode: UInt64(bitPattern: try value("inode") as Int64), size: try value("size"),
                mtimeNs: try value("mtime_ns"), ctimeNs: try value("ctime_ns"),
                mode: UInt32(truncatingIfNeeded: try value("mode") as Int64))
            let directory = DirectoryIdentity(
                device: UInt64(bitPattern: try value("directory_device") as Int64),
                inode: UInt64(bitPattern: try value("directory_inode") as Int64))
            return PartialDownload(
                path: path, contentHash: try value("content_hash"), staging: try value("staging"), directory: directory,
                lengths: lengths, stat: stat, sealed: try value("sealed"), keptAt: keptAt)
        }
    }
}
