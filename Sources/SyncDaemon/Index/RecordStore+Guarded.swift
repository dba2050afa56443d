import GRDB
import SyncCore

/// Writes that hold only over the base they were planned against: the base is read and
/// the update written in one transaction (a push may have recorded a newer revision of
/// the path meanwhile; then the caller plans again).
extension RecordStore {
    /// Applies `update` only if the base record at `path` is still `expected`; else
    /// throws `changedMeanwhile`.
    func apply(folder: String, _ update: IndexUpdate, ifBase expected: BaseRecord?, at path: String) throws {
        let applied: Bool = try pool.write { db in
            guard try base.record(folder: folder, path: path, in: db) == expected else { return false }
            try apply(folder: folder, update, in: db)
            return true
        }
        guard applied else {
            throw DaemonError(.changedMeanwhile, "its synced state changed while it was written", path: path)
        }
    }

    /// Applies each update whose path's base record is still its `ifBase` (and the second
    /// path's its `alsoIfBase`, where there is one), all in one
    /// transaction (one fsync for the lot), and records `landed` in it (`LandedDownload`);
    /// returns the paths whose update or landed record was written.
    func apply(folder: String, guarded updates: [GuardedUpdate], landed: [LandedDownload] = []) throws -> Set<String> {
        let updates = updates + landed.map {
            GuardedUpdate(path: $0.local.path, update: IndexUpdate().adding(local: $0.local), ifBase: $0.base)
        }
        return try pool.write { db in
            if !landed.isEmpty { try intents.drop(folder: folder, paths: landed.map(\.local.path), in: db) }
            // The bases are read in few queries, then kept as the updates write them. An update
            // that moves or removes a subtree could change other paths' bases: with one of
            // those, each base is read right before its update instead.
            var known: [String: BaseRecord]?
            if !updates.contains(where: { !$0.update.moves.isEmpty || !$0.update.removedLocals.isEmpty }) {
                var read: [String: BaseRecord] = [:]
                for slice in IndexSQL.slices(Array(Set(updates.map(\.path) + updates.compactMap(\.alsoIfBase?.path)))) {
                    for b in try base.records(folder: folder, paths: slice, in: db) { read[b.path] = b }
                }
                known = read
            }
            var applied = Set<String>()
            for item in updates {
                let current = try known.map { $0[item.path] } ?? base.record(folder: folder, path: item.path, in: db)
                guard current == item.ifBase else { continue }
                if let also = item.alsoIfBase {
                    let other = try known.map { $0[also.path] } ?? base.record(folder: folder, path: also.path, in: db)
                    guard other == also.base else { continue }
                }
                let leftOut = try apply(folder: folder, item.update, in: db)
                for b in item.update.bases where !leftOut.contains(b.path) { known?[b.path] = b }
                applied.insert(item.path)
            }
            return applied
        }
    }

    /// Records `landed` (`LandedDownload`) in one transaction.
    func record(folder: String, landed: [LandedDownload]) throws {
        _ = try apply(folder: folder, guarded: [], landed: landed)
    }

    /// Puts back a path's records as they were (nil: none).
    /// A download or delete intent of the path, if any, is done with too.
    /// `onlyOver`: put back only if the base is still the one the caller recorded (a push
    /// may have recorded a newer revision of the path since: that one stays).
    func restore(
        folder: String, path: String, local: LocalRecord?, base previous: BaseRecord?, onlyOver recorded: BaseRecord? = nil
    ) throws {
        try pool.write { db in
            if let recorded, try base.record(folder: folder, path: path, in: db) != recorded {
                try intents.drop(folder: folder, paths: [path], in: db)
                try deleteIntents.drop(folder: folder, paths: [path], in: db)
                return
            }
            try putBack(folder: folder, path: path, local: local, base: previous, in: db)
        }
    }

    /// `restore` inside the caller's transaction, unguarded.
    func putBack(folder: String, path: String, local: LocalRecord?, base previous: BaseRecord?, in db: Database) throws {
        var update = IndexUpdate()
        if let local { update.locals.append(local) } else { update.removedLocals.append(path) }
        if let previous { update.bases.append(previous) }
        update.landed = [path]
        update.deletesDone = [path]
        try apply(folder: folder, update, in: db)
        if previous == nil { try base.remove(folder: folder, path: path, in: db) }
    }

    /// Records what the server did with a resent commit: each base unless the index
    /// already knows a newer revision of that path (the feed may have brought one
    /// meanwhile) and each adoption only over its prepared base (`IndexUpdate.preparedOver`);
    /// the commit leaves the outbox in the same transaction. Returns the paths left out.
    func applyResent(folder: String, _ update: IndexUpdate) throws -> Set<String> {
        try pool.write { db in
            var newer = update
            newer.bases = try update.bases.filter { b in
                guard let rev = try base.rev(folder: folder, path: b.path, in: db) else { return true }
                return rev < b.rev
            }
            // A base left out here is known already, or a newer one is: its adoption is moot.
            let known = Set(update.bases.map(\.path)).subtracting(newer.bases.map(\.path))
            for path in known { newer.preparedOver[path] = nil }
            return try apply(folder: folder, newer, in: db)
        }
    }
}
