import PostgresNIO

/// Folders, devices and grants in PostgreSQL (the SQLite side is `AccountStore`; the same
/// sentences for the same mistakes).
struct PostgresAccountStore: AccountBackend {
    let store: PostgresMetadataStore
    private var logger: Logger { store.logger }

    func addFolder(_ id: String) async throws {
        try await store.run {
            let inserted = try await store.client.query(
                """
                INSERT INTO folders (id, rev, created_at) VALUES (\(id), 0, \(MetadataStore.nowSeconds()))
                ON CONFLICT (id) DO NOTHING RETURNING 1
                """, logger: logger
            ).collect().count
            guard inserted == 1 else { throw APIError.alreadyExists("folder '\(id)' already exists") }
        }
    }

    func folderIDs() async throws -> [String] {
        try await store.run {
            var ids: [String] = []
            for try await id in try await store.client.query("SELECT id FROM folders ORDER BY id", logger: logger).decode(String.self) {
                ids.append(id)
            }
            return ids
        }
    }

    func addDevice(id: String, name: String, secretHash: String, folders: [String]) async throws {
        try await store.run {
            try await store.client.withTransaction(logger: logger) { connection in
                try await requireFolders(folders, connection)
                try await requireNameFree(name, except: nil, connection)
                do {
                    try await connection.query(
                        """
                        INSERT INTO devices (id, name, secret_hash, created_at)
                        VALUES (\(id), \(name), \(secretHash), \(MetadataStore.nowSeconds()))
                        """, logger: logger)
                } catch where PostgresMetadataStore.sqlState(error) == "23505" {
                    // Another instance took the name (or the id) in between.
                    throw APIError.alreadyExists("a device named '\(name)' already exists; choose another name")
                }
                try await connection.query(
                    "INSERT INTO grants (device_id, folder_id) SELECT \(id), unnest(\(Array(Set(folders)))::text[])",
                    logger: logger)
            }
        }
    }

    func device(id: String) async throws -> DeviceRecord? {
        try await store.run {
            var record: DeviceRecord?
            for try await (name, secret, revoked, seen) in try await store.client.query(
                "SELECT name, secret_hash, revoked_at, last_seen_at FROM devices WHERE id = \(id)", logger: logger
            ).decode((String, String, Int64?, Int64?).self) {
                record = DeviceRecord(id: id, name: name, secretHash: secret, folders: [], revokedAt: revoked, lastSeenAt: seen)
            }
            guard var record else { return nil }
            record.folders = try await grants(of: id)
            return record
        }
    }

    func activeGrants(device id: String) async throws -> Set<String>? {
        try await store.run {
            var exists = false, revoked = false
            for try await at in try await store.client.query("SELECT revoked_at FROM devices WHERE id = \(id)", logger: logger)
                .decode(Int64?.self)
            {
                exists = true
                revoked = at != nil
            }
            guard exists, !revoked else { return nil }
            return Set(try await grants(of: id))
        }
    }

    func devices() async throws -> [DeviceRecord] {
        try await store.run {
            var grants: [String: [String]] = [:]
            for try await (device, folder) in try await store.client.query(
                "SELECT device_id, folder_id FROM grants ORDER BY folder_id", logger: logger
            ).decode((String, String).self) { grants[device, default: []].append(folder) }
            var records: [DeviceRecord] = []
            for try await (id, name, secret, revoked, seen) in try await store.client.query(
                "SELECT id, name, secret_hash, revoked_at, last_seen_at FROM devices ORDER BY name, id", logger: logger
            ).decode((String, String, String, Int64?, Int64?).self) {
                records.append(
                    DeviceRecord(id: id, name: name, secretHash: secret, folders: grants[id] ?? [], revokedAt: revoked, lastSeenAt: seen))
            }
            return records
        }
    }

    func touch(device id: String, at seconds: Int64) async throws {
        try await store.run {
            try await store.client.query("UPDATE devices SET last_seen_at = \(seconds) WHERE id = \(id)", logger: logger)
        }
    }

    func revokeDevice(id: String, at seconds: Int64) async throws {
        try await store.run {
            try await store.client.query(
                "UPDATE devices SET revoked_at = COALESCE(revoked_at, \(seconds)) WHERE id = \(id)", logger: logger)
        }
    }

    func grant(device: String, folder: String) async throws {
        try await store.run {
            try await store.client.withTransaction(logger: logger) { connection in
                try await requireDevice(device, connection)
                try await requireFolders([folder], connection)
                try await connection.query(
                    "INSERT INTO grants (device_id, folder_id) VALUES (\(device), \(folder)) ON CONFLICT DO NOTHING", logger: logger)
            }
        }
    }

    func ungrant(device id: String, folder: String) async throws {
        try await store.run {
            try await store.client.withTransaction(logger: logger) { connection in
                try await requireFolders([folder], connection)
                try await connection.query("DELETE FROM grants WHERE device_id = \(id) AND folder_id = \(folder)", logger: logger)
            }
        }
    }

    func renameDevice(id: String, to name: String) async throws {
        try await store.run {
            try await store.client.withTransaction(logger: logger) { connection in
                try await requireDevice(id, connection)
                try await requireNameFree(name, except: id, connection)
                do {
                    try await connection.query("UPDATE devices SET name = \(name) WHERE id = \(id)", logger: logger)
                } catch where PostgresMetadataStore.sqlState(error) == "23505" {
                    throw APIError.alreadyExists("a device named '\(name)' already exists; choose another name")
                }
            }
        }
    }

    private func grants(of device: String) async throws -> [String] {
        var folders: [String] = []
        for try await folder in try await store.client.query(
            "SELECT folder_id FROM grants WHERE device_id = \(device) ORDER BY folder_id", logger: logger
        ).decode(String.self) { folders.append(folder) }
        return folders
    }

    private func requireDevice(_ id: String, _ connection: PostgresConnection) async throws {
        guard try await connection.query("SELECT 1 FROM devices WHERE id = \(id)", logger: logger).collect().count == 1 else {
            throw APIError.notFound("device '\(id)' does not exist")
        }
    }

    private func requireNameFree(_ name: String, except id: String?, _ connection: PostgresConnection) async throws {
        for try await holder in try await connection.query(
            "SELECT id FROM devices WHERE name = \(name) AND id IS DISTINCT FROM \(id)", logger: logger
        ).decode(String.self) {
            throw APIError.alreadyExists(
                "a device named '\(name)' already exists (id \(holder)); choose another name, or rename or revoke that device first")
        }
    }

    private func requireFolders(_ folders: [String], _ connection: PostgresConnection) async throws {
        var known: Set<String> = []
        for try await id in try await connection.query("SELECT id FROM folders WHERE id = ANY(\(folders))", logger: logger)
            .decode(String.self)
        { known.insert(id) }
        if let missing = folders.first(where: { !known.contains($0) }) {
            throw APIError.notFound("folder '\(missing)' does not exist (create it with `sync-server folder add \(missing)`)")
        }
    }
}

extension PostgresMetadataStore: MetadataBackend {}
