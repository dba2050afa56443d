import GRDB

/// The daemon's local index: one SQLite file (WAL) under the state directory. This type
/// opens it and brings its schema up to date; the tables are read and written through
/// focused stores over the one database, each owning its tables (docs/architecture.md):
/// `files`, `base`, `records` (a path's records as one, and every write across them),
/// `journal`, `outbox`, `intents`, `folders`, `retries`, `errors`, `conflicts`, `chunks`.
public final class IndexStore: Sendable {
    let pool: DatabasePool

    /// `local_files`: what we last saw and hashed.
    public let files: LocalFileStore
    /// `local_chunks`: which local files hold which chunks.
    let chunks: LocalChunkStore
    /// `base`: what both sides agreed on.
    public let base: BaseStore
    /// Local file and base records read together, and updates written across the tables.
    let records: RecordStore
    /// `journal`: pending pushes, coalesced by path.
    public let journal: JournalStore
    /// `commit_outbox`: commits sent whose outcome is not recorded yet.
    let outbox: OutboxStore
    /// `download_intents`: downloads recorded but perhaps not renamed into place.
    let intents: DownloadIntentStore
    /// `folder_state`: remote cursor, paused, last synced.
    public let folders: FolderStateStore
    /// `remote_retry`: remote entries not applied yet.
    let retries: RemoteRetryStore
    /// `path_errors`: what the status shows per path.
    public let errors: PathErrorStore
    /// `conflicts`.
    public let conflicts: ConflictStore
    /// `partial_downloads`: big downloads cut short, kept over a stop.
    let partialDownloads: PartialDownloadStore

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // WAL + FULL: journaled work and recorded bases are on disk before anyone is told
            // (survives a power loss); group commits keep fsyncs to one per batch.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        // GRDB sets NORMAL on the writer when it enables WAL, after prepareDatabase.
        try pool.barrierWriteWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try Self.migrator.migrate(pool)
        files = LocalFileStore(pool: pool)
        chunks = LocalChunkStore(pool: pool)
        base = BaseStore(pool: pool)
        records = RecordStore(pool: pool)
        journal = JournalStore(pool: pool)
        outbox = OutboxStore(pool: pool)
        intents = DownloadIntentStore(pool: pool)
        folders = FolderStateStore(pool: pool)
        retries = RemoteRetryStore(pool: pool)
        errors = PathErrorStore(pool: pool)
        conflicts = ConflictStore(pool: pool)
        partialDownloads = PartialDownloadStore(pool: pool)
    }
}
