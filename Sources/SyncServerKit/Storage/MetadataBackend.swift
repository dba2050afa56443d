import SyncCore

/// What every metadata store offers: `MetadataStore` (SQLite, the embedded default) and
/// `PostgresMetadataStore` (issue 10). The same suite (`MetadataBackendTests`) runs against
/// both; the commit's decisions are one `CommitPlan` for both.
protocol MetadataBackend: Sendable {
    associatedtype Accounts: AccountBackend
    var accounts: Accounts { get }

    /// Names of the migrations applied to this database, sorted.
    func appliedMigrations() async throws -> [String]
    /// Answers when the database does (readiness).
    func ping() async throws
    /// The folder's current revision, nil if it does not exist.
    func folderRev(_ folder: String) async throws -> Int64?
    /// Applies validated changes in order, in one transaction (see `MetadataStore.commit`).
    func commit(
        folder: String, device: String, changes: [CommitChange], idempotency: (id: String, requestHash: String)?,
        checkingChunksOf checked: CommitValidator.Checked?
    ) async throws -> CommitResponse?
    /// Entries with rev > `since`, oldest first, at most `limit`; nil if the folder does not exist.
    func changes(folder: String, since: Int64, limit: Int) async throws -> ChangesResponse?
    /// Every recorded version of `path` (including tombstones), newest first.
    func history(folder: String, path: String) async throws -> [WireEntry]
    /// When and by which device each version of `path` was committed, newest first.
    func provenance(folder: String, path: String) async throws -> [VersionProvenance]
    /// Deletes versions committed before `cutoff` except each path's current one; returns how many.
    func pruneHistory(before cutoff: Int64) async throws -> Int
    /// Forgets remembered commit replies older than `cutoff`; returns how many.
    func pruneCommitReplies(before cutoff: Int64) async throws -> Int
    /// What `sync-server status` shows: folders with their live files, devices, chunks, packs.
    func summary() async throws -> ServerAdmin.Summary
    /// Deletes the folder with its entries, history, grants and replies; false if there was none.
    func removeFolder(_ id: String) async throws -> Bool
    /// Access tokens other instances may be asked for (PostgreSQL): the token's SHA-256, its
    /// device and when it expires (Unix seconds). SQLite has one server: nothing to share.
    func shareToken(hash: String, device: String, expiresAt: Int64) async throws
    /// The device (id, name) of a token another instance issued, if it has not expired.
    func sharedToken(hash: String, now: Int64) async throws -> (device: String, name: String, expiresAt: Int64)?
    /// Forgets shared tokens that expired; returns how many.
    func pruneExpiredTokens(now: Int64) async throws -> Int
    /// For `storage check`, in one snapshot: each chunk the live entries and kept versions
    /// reference (with who references it), and where the index says each one is.
    func chunkReferences() async throws -> (references: [String: [StorageCheck.Reference]], locations: [String: ChunkLocation])
}

/// Folders, devices and grants, in either store.
protocol AccountBackend: Sendable {
    func addFolder(_ id: String) async throws
    func folderIDs() async throws -> [String]
    /// Inserts the device and its grants; every folder must exist, the name must be free.
    func addDevice(id: String, name: String, secretHash: String, folders: [String]) async throws
    func device(id: String) async throws -> DeviceRecord?
    /// The folders a device may use now; nil when it does not exist or was revoked.
    func activeGrants(device id: String) async throws -> Set<String>?
    /// Every device, by name then id.
    func devices() async throws -> [DeviceRecord]
    func touch(device id: String, at seconds: Int64) async throws
    func revokeDevice(id: String, at seconds: Int64) async throws
    func grant(device: String, folder: String) async throws
    func ungrant(device id: String, folder: String) async throws
    func renameDevice(id: String, to name: String) async throws
}

extension MetadataStore: MetadataBackend {}
extension AccountStore: AccountBackend {}

extension MetadataBackend {
    /// A commit without a commit id, its chunks not checked (admin tools and tests).
    func commit(folder: String, device: String, changes: [CommitChange]) async throws -> CommitResponse? {
        try await commit(folder: folder, device: device, changes: changes, idempotency: nil, checkingChunksOf: nil)
    }
}
