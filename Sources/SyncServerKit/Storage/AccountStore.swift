import GRDB

/// A device as stored: its credential only as SHA-256 of the secret.
struct DeviceRecord: Sendable, Equatable {
    var id: String
    var name: String
    var secretHash: String
    var folders: [String]
    /// When it was revoked (seconds since 1970), nil while it may sync.
    var revokedAt: Int64? = nil
    /// When it last got an access token (seconds since 1970), nil if never.
    var lastSeenAt: Int64? = nil
}

/// Folders, devices and which device may sync which folder: the accounts part of the
/// metadata database.
struct AccountStore: Sendable {
    let pool: DatabasePool

    func device(id: String) async throws -> DeviceRecord? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT name, secret_hash, revoked_at FROM devices WHERE id = ?", arguments: [id])
            else { return nil }
            let folders = try String.fetchAll(
                db, sql: "SELECT folder_id FROM grants WHERE device_id = ? ORDER BY folder_id", arguments: [id])
            return DeviceRecord(id: id, name: row[0], secretHash: row[1], folders: folders, revokedAt: row[2])
        }
    }

    /// The folders a device may use now; nil when it does not exist or was
    /// revoked. Read on every request, so a revocation bites at once, also one
    /// made by another process (`sync-server device revoke`).
    func activeGrants(device id: String) async throws -> Set<String>? {
        try await pool.read { db in
            let state = try Row.fetchOne(db, sql: "SELECT revoked_at FROM devices WHERE id = ?", arguments: [id])
            guard let state, state[0] as Int64? == nil else { return nil }
            return Set(try String.fetchAll(db, sql: "SELECT folder_id FROM grants WHERE device_id = ?", arguments: [id]))
        }
    }

    /// Every device, by name then id.
    func devices() async throws -> [DeviceRecord] {
        try await pool.read { db in
            let grants = Dictionary(
                grouping: try Row.fetchAll(db, sql: "SELECT device_id, folder_id FROM grants ORDER BY folder_id"),
                by: { $0[0] as String })
            return try Row.fetchAll(
                db, sql: "SELECT id, name, secret_hash, revoked_at, last_seen_at FROM devices ORDER BY name, id"
            ).map {
                DeviceRecord(
                    id: $0[0], name: $0[1], secretHash: $0[2], folders: (grants[$0[0]] ?? []).map { $0[1] },
                    revokedAt: $0[3], lastSeenAt: $0[4])
            }
        }
    }

    /// Records that the device just got an access token.
    func touch(device id: String, at seconds: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE devices SET last_seen_at = ? WHERE id = ?", arguments: [seconds, id])
        }
    }

    /// Marks the device revoked (idempotent); its credential and tokens stop working at once.
    func revokeDevice(id: String, at seconds: Int64) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE devices SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", arguments: [seconds, id])
        }
    }

    func addFolder(_ id: String) async throws {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM folders WHERE id = ?", arguments: [id]) != nil {
                throw APIError.alreadyExists("folder '\(id)' already exists")
            }
            try db.execute(
                sql: "INSERT INTO folders (id, rev, created_at) VALUES (?, 0, ?)", arguments: [id, MetadataStore.nowSeconds()])
        }
    }

    func folderIDs() async throws -> [String] {
        try await pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM folders ORDER BY id") }
    }

    /// Inserts the device and its grants; every folder must exist.
    func addDevice(id: String, name: String, secretHash: String, folders: [String]) async throws {
        try await pool.write { db in
            try Self.requireFolders(folders, db)
            try Self.requireNameFree(name, except: nil, db)
            try db.execute(
                sql: "INSERT INTO devices (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [id, name, secretHash, MetadataStore.nowSeconds()])
            for folder in Set(folders) {
                try db.execute(sql: "INSERT INTO grants (device_id, folder_id) VALUES (?, ?)", arguments: [id, folder])
            }
        }
    }

    func grant(device: String, folder: String) async throws {
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE id = ?", arguments: [device]) != nil else {
                throw APIError.notFound("device '\(device)' does not exist")
            }
            try Self.requireFolders([folder], db)
            try db.execute(
                sql: "INSERT OR IGNORE INTO grants (device_id, folder_id) VALUES (?, ?)", arguments: [device, folder])
        }
    }

    /// Takes `folder` away from device `id` (idempotent); its next request there gets 403.
    func ungrant(device id: String, folder: String) async throws {
        try await pool.write { db in
            try Self.requireFolders([folder], db)
            try db.execute(sql: "DELETE FROM grants WHERE device_id = ? AND folder_id = ?", arguments: [id, folder])
        }
    }

    /// Gives the device `id` the name `name`, which no other device may have.
    func renameDevice(id: String, to name: String) async throws {
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE id = ?", arguments: [id]) != nil else {
                throw APIError.notFound("device '\(id)' does not exist")
            }
            try Self.requireNameFree(name, except: id, db)
            try db.execute(sql: "UPDATE devices SET name = ? WHERE id = ?", arguments: [name, id])
        }
    }

    /// Device names are unique (migration v8 enforces it in the database too); this
    /// check comes first so the operator reads a sentence, not a constraint error.
    private static func requireNameFree(_ name: String, except id: String?, _ db: Database) throws {
        let holder = try String.fetchOne(
            db, sql: "SELECT id FROM devices WHERE name = ? AND id IS NOT ?", arguments: [name, id])
        guard let holder else { return }
        throw APIError.alreadyExists(
            "a device named '\(name)' already exists (id \(holder)); choose another name, or rename or revoke that device first")
    }

    private static func requireFolders(_ folders: [String], _ db: Database) throws {
        for folder in folders {
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM folders WHERE id = ?", arguments: [folder]) == nil else {
                continue
            }
            throw APIError.notFound("folder '\(folder)' does not exist (create it with `sync-server folder add \(folder)`)")
        }
    }
}
