import Foundation
import GRDB

/// `folder_state`: per folder the remote cursor (the feed is read from it), whether the
/// user paused it, and when it was last in sync.
public struct FolderStateStore: Sendable {
    let pool: DatabasePool
    static let table = "folder_state"

    public struct State: Sendable, Equatable {
        public var remoteCursor: Int64 = 0
        public var paused = false
        public var lastSyncedAt: Date?
    }

    public func state(folder: String) throws -> State {
        try pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM folder_state WHERE folder_id = ?", arguments: [folder])
            else { return State() }
            let lastSynced: Double? = try row.indexValue("last_synced_at", table: Self.table)
            return State(
                remoteCursor: try row.indexValue("remote_cursor", table: Self.table),
                paused: try row.indexValue("paused", table: Self.table),
                lastSyncedAt: lastSynced.map { Date(timeIntervalSince1970: $0) })
        }
    }

    /// Stored only after a page is applied.
    public func setRemoteCursor(folder: String, _ cursor: Int64) throws {
        try set(folder: folder, column: "remote_cursor", cursor)
    }

    public func setPaused(folder: String, _ paused: Bool) throws {
        try set(folder: folder, column: "paused", paused)
    }

    public func setLastSynced(folder: String, at date: Date) throws {
        try set(folder: folder, column: "last_synced_at", date.timeIntervalSince1970)
    }

    /// Upserts one column (column names are ours, never input).
    private func set(folder: String, column: String, _ value: some DatabaseValueConvertible) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO folder_state (folder_id, \(column)) VALUES (?, ?)
                    ON CONFLICT (folder_id) DO UPDATE SET \(column) = excluded.\(column)
                    """, arguments: [folder, value])
        }
    }
}
