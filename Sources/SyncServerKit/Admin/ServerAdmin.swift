import Foundation
import Logging
import SyncCore

/// Administrative operations (the `sync-server folder|device|history`
/// commands). Safe while the server runs: SQLite WAL plus a busy timeout.
/// Errors are `APIError`s whose `message` is meant for the operator.
public struct ServerAdmin: Sendable {
    let metadata: any MetadataBackend
    /// Set when this admin opened the store itself (`open`): `close()` closes it.
    private let opened: OpenedMetadata?

    /// The SQLite store of `dataDir` (made if missing).
    public init(dataDir: String) throws {
        try DataDirectory.create(dataDir)
        self.metadata = try MetadataStore(path: ServerSettings(dataDir: dataDir).metadataPath)
        self.opened = nil
    }

    /// The store `settings` names: SQLite in its data directory, or PostgreSQL (migrated).
    public static func open(settings: ServerSettings, logger: Logger) async throws -> ServerAdmin {
        if settings.metadata == .sqlite { return try ServerAdmin(dataDir: settings.dataDir) }
        return ServerAdmin(opened: try await settings.openMetadata(logger: logger))
    }

    init(metadata: any MetadataBackend) {
        self.metadata = metadata
        self.opened = nil
    }

    init(opened: OpenedMetadata) {
        self.metadata = opened.store
        self.opened = opened
    }

    /// The migrations the metadata database has, sorted.
    public func appliedMigrations() async throws -> [String] { try await metadata.appliedMigrations() }

    /// Closes what `open` opened (PostgreSQL connections).
    public func close() async { await opened?.close() }

    public func addFolder(_ id: String) async throws {
        try Identifiers.validateFolderID(id)
        try await metadata.accounts.addFolder(id)
    }

    /// All folder ids, sorted.
    public func folders() async throws -> [String] { try await metadata.accounts.folderIDs() }

    /// Registers a device granted `folders` (which must exist) and returns its
    /// credential, `<device_id>.<secret>`: shown once, stored only hashed.
    public func addDevice(name: String, folders: [String]) async throws -> String {
        try Identifiers.validateDeviceName(name)
        for folder in folders { try Identifiers.validateFolderID(folder) }
        let credential = Credential.generate()
        try await metadata.accounts.addDevice(
            id: credential.deviceID, name: name, secretHash: credential.secretHash, folders: folders)
        return credential.string
    }

    /// A device as the operator sees it.
    public struct DeviceInfo: Sendable, Equatable {
        public var id: String
        public var name: String
        public var folders: [String]
        public var revoked: Bool
        /// When it last got an access token (about hourly while it syncs); nil if never.
        public var lastSeen: Date? = nil
    }

    /// Every device, by name.
    public func devices() async throws -> [DeviceInfo] {
        try await metadata.accounts.devices().map {
            DeviceInfo(
                id: $0.id, name: $0.name, folders: $0.folders, revoked: $0.revokedAt != nil,
                lastSeen: $0.lastSeenAt.map { Date(timeIntervalSince1970: TimeInterval($0)) })
        }
    }

    /// Revokes the device named `nameOrID` (its name, or its id when names are
    /// shared): its credential is refused from now on and every request with
    /// a token it already holds gets 401, also on a server that is running.
    @discardableResult
    public func revokeDevice(_ nameOrID: String, now: Date = Date()) async throws -> DeviceInfo {
        let device = try await findDevice(nameOrID)
        try await metadata.accounts.revokeDevice(id: device.id, at: Int64(now.timeIntervalSince1970))
        var revoked = device
        revoked.revoked = true
        return revoked
    }

    /// Renames the device named `nameOrID` (its name, or its id) to `newName`,
    /// which no other device may have. History keeps naming it by id.
    @discardableResult
    public func renameDevice(_ nameOrID: String, to newName: String) async throws -> DeviceInfo {
        try Identifiers.validateDeviceName(newName)
        var device = try await findDevice(nameOrID)
        try await metadata.accounts.renameDevice(id: device.id, to: newName)
        device.name = newName
        return device
    }

    /// Grants the device named `nameOrID` access to `folder`; returns the device.
    @discardableResult
    public func grant(deviceNamed nameOrID: String, folder: String) async throws -> DeviceInfo {
        let device = try await findDevice(nameOrID)
        try await grant(device: device.id, folder: folder)
        return device
    }

    /// Takes `folder` away from the device named `nameOrID`: its next request for
    /// that folder is refused with 403, also on a running server.
    @discardableResult
    public func revokeAccess(deviceNamed nameOrID: String, folder: String) async throws -> DeviceInfo {
        let device = try await findDevice(nameOrID)
        try await metadata.accounts.ungrant(device: device.id, folder: folder)
        return device
    }

    /// The one device whose id is `nameOrID`, else the one named so.
    func findDevice(_ nameOrID: String) async throws -> DeviceInfo {
        let all = try await devices()
        let byID = all.filter { $0.id == nameOrID }
        let matches = byID.isEmpty ? all.filter { $0.name == nameOrID } : byID
        guard let device = matches.first else { throw APIError.notFound("no device named '\(nameOrID)'") }
        guard matches.count == 1 else {
            throw APIError(
                .invalidArgument, status: .badRequest,
                "\(matches.count) devices are named '\(nameOrID)'; give one of their ids: "
                    + matches.map(\.id).joined(separator: ", "))
        }
        return device
    }

    /// Grants an existing device access to an existing folder (idempotent).
    /// Takes effect at the device's next request.
    public func grant(device: String, folder: String) async throws {
        try await metadata.accounts.grant(device: device, folder: folder)
    }

    /// The versions of `path` in `folder`, newest first.
    public func history(folder: String, path: String) async throws -> [WireEntry] {
        guard try await metadata.folderRev(folder) != nil else {
            throw APIError.notFound("folder '\(folder)' does not exist")
        }
        let normalized: String
        do {
            normalized = try RelativePath(validating: path).string
        } catch {
            throw APIError.invalidPath("\(error)", cause: error)
        }
        return try await metadata.history(folder: folder, path: normalized)
    }

    /// When and by which device (its name) each version of `path` was committed, newest first.
    public func provenance(folder: String, path: String) async throws -> [VersionProvenance] {
        let normalized: String
        do {
            normalized = try RelativePath(validating: path).string
        } catch {
            throw APIError.invalidPath("\(error)", cause: error)
        }
        return try await metadata.provenance(folder: folder, path: normalized)
    }

    /// Drops history rows older than `retention` that are no longer any path's
    /// current version. Returns how many were removed.
    @discardableResult
    public func pruneHistory(retention: Duration, now: Date = Date()) async throws -> Int {
        let cutoff = Int64(now.timeIntervalSince1970) - retention.components.seconds
        _ = try await metadata.pruneCommitReplies(before: cutoff)
        _ = try await metadata.pruneExpiredTokens(now: Int64(now.timeIntervalSince1970))
        return try await metadata.pruneHistory(before: cutoff)
    }
}
