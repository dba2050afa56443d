import GRDB
import SyncCore

/// A path's records taken as one: its local file record and its base are read together
/// (one snapshot), and an `IndexUpdate` — local files and their chunks, bases, download
/// and delete intents, settled outbox commits — is written in one transaction (one fsync for a
/// batch). The one place that writes across those tables; the journal's `finish` adds
/// its own rows to the same transaction through `apply(folder:_:in:)`.
struct RecordStore: Sendable {
    let pool: DatabasePool
    var files: LocalFileStore { LocalFileStore(pool: pool) }
    var chunks: LocalChunkStore { LocalChunkStore(pool: pool) }
    var base: BaseStore { BaseStore(pool: pool) }
    var intents: DownloadIntentStore { DownloadIntentStore(pool: pool) }
    var deleteIntents: DeleteIntentStore { DeleteIntentStore(pool: pool) }
    var outbox: OutboxStore { OutboxStore(pool: pool) }

    /// Local and base records of many paths in few queries, from one snapshot.
    func read(folder: String, paths: [String]) throws -> (local: [String: LocalRecord], base: [String: BaseRecord]) {
        try pool.read { db in (try locals(folder: folder, paths: paths, in: db), try bases(folder: folder, paths: paths, in: db)) }
    }

    /// The base records alone of many paths in few queries (a feed page's "seen already").
    func bases(folder: String, paths: [String]) throws -> [String: BaseRecord] {
        try pool.read { db in try bases(folder: folder, paths: paths, in: db) }
    }

    /// The local records alone of many paths in few queries (what a batch may download fresh).
    func locals(folder: String, paths: [String]) throws -> [String: LocalRecord] {
        try pool.read { db in try locals(folder: folder, paths: paths, in: db) }
    }

    private func bases(folder: String, paths: [String], in db: Database) throws -> [String: BaseRecord] {
        var bases: [String: BaseRecord] = [:]
        for slice in IndexSQL.slices(paths) {
            for b in try base.records(folder: folder, paths: slice, in: db) { bases[b.path] = b }
        }
        return bases
    }

    private func locals(folder: String, paths: [String], in db: Database) throws -> [String: LocalRecord] {
        var locals: [String: LocalRecord] = [:]
        for slice in IndexSQL.slices(paths) {
            for r in try files.records(folder: folder, paths: slice, in: db) { locals[r.path] = r }
        }
        return locals
    }

    /// The local records and live base records at `path` and below it, from one snapshot.
    func subtree(folder: String, at path: String) throws -> (locals: [LocalRecord], bases: [BaseRecord]) {
        try pool.read { db in
            let locals = try Row.fetchAll(
                db, sql: "SELECT \(LocalFileStore.columns) FROM \(LocalFileStore.table) WHERE \(IndexSQL.subtree)", arguments: IndexSQL.subtree(folder: folder, path))
            return (try locals.map(LocalFileStore.decode), try base.live(folder: folder, under: path, in: db))
        }
    }

    /// Applies index changes outside a push (downloads, adopted revisions) in one transaction.
    func apply(folder: String, _ update: IndexUpdate) throws {
        try pool.write { db in _ = try apply(folder: folder, update, in: db) }
    }

    /// Writes `update` inside the caller's transaction. Returns the paths whose records were
    /// left out: their base is no longer the one they were prepared over, or is newer than the
    /// one recorded (`IndexUpdate.preparedOver`, `notOverNewer`).
    @discardableResult
    func apply(folder: String, _ update: IndexUpdate, in db: Database) throws -> Set<String> {
        var update = update
        var outdated = Set<String>()
        if !update.preparedOver.isEmpty || !update.notOverNewer.isEmpty {
            let recording = Dictionary(update.bases.map { ($0.path, $0.rev) }, uniquingKeysWith: { _, last in last })
            let current = try base.revs(folder: folder, paths: Array(update.preparedOver.keys) + update.notOverNewer, in: db)
            for (path, preparedRev) in update.preparedOver where (current[path] ?? 0) != preparedRev && current[path] != recording[path] {
                outdated.insert(path)
            }
            for path in update.notOverNewer {
                guard let recorded = recording[path], let now = current[path] else { continue }
                if now > recorded { outdated.insert(path) }
            }
        }
        if !outdated.isEmpty { update.leaveOut(outdated) }
        for move in update.moves {
            try files.rename(folder: folder, from: move.from, to: move.to, in: db)
            try chunks.rename(folder: folder, from: move.from, to: move.to, in: db)
            try base.moveAway(folder: folder, from: move.from, to: move.to, in: db)
        }
        try intents.put(folder: folder, update.intents, in: db)
        if !update.landed.isEmpty { try intents.drop(folder: folder, paths: update.landed, in: db) }
        try deleteIntents.put(folder: folder, update.deleteIntents, in: db)
        if !update.deletesDone.isEmpty { try deleteIntents.drop(folder: folder, paths: update.deletesDone, in: db) }
        if !update.settledCommits.isEmpty { try outbox.drop(folder: folder, ids: update.settledCommits, in: db) }
        let written = try files.put(folder: folder, update.locals, in: db)
        try chunks.put(folder: folder, update.locals, written: written, in: db)
        for path in update.removedLocals {
            try files.remove(folder: folder, under: path, in: db)
            try chunks.remove(folder: folder, under: path, in: db)
        }
        try base.put(folder: folder, update.bases, in: db)
        return outdated
    }
}
