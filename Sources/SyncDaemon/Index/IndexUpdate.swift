/// Writes of one push batch or one remote application, applied in one transaction
/// (`RecordStore.apply`; one fsync for the lot).
struct IndexUpdate: Sendable {
    /// Committed moves, applied first: local records at `from` and below take the
    /// new name, live base records there become tombstones (see `BaseStore.moveAway`).
    var moves: [(from: String, to: String)] = []
    var locals: [LocalRecord] = []
    var removedLocals: [String] = []
    var bases: [BaseRecord] = []
    /// Downloads about to be renamed into place (written with the rest), and downloads
    /// that landed (their intents dropped).
    var intents: [DownloadIntent] = []
    var landed: [String] = []
    /// Remote deletes about to be moved to the trash (written with their tombstones), and
    /// deletes whose moves are durable now (their intents dropped).
    var deleteIntents: [DeleteIntent] = []
    var deletesDone: [String] = []
    /// Commits whose outcome this update records (or that the server refused whole):
    /// their outbox rows go with it.
    var settledCommits: [String] = []
    /// Paths whose records here hold only while the path's base is still the one a push was
    /// prepared against (its rev; 0: none) or already the one recorded here: what a
    /// preparation found unchanged, and what a commit's reply adopts where the server did not
    /// apply a change because it held what the change meant already. A download may have
    /// landed at the path since the push was prepared, and its records must stay: the path's
    /// records here are then left out, and the caller looks at the path again.
    var preparedOver: [String: Int64] = [:]
    /// Paths whose records here (a change the server applied, recorded from its reply) are
    /// left out, the same way, only where the index holds a newer revision of the path: a
    /// reply lost and retried for seconds may come after a download of a later revision
    /// landed. An older one recorded meanwhile (a tombstone the feed brought, which the server
    /// took the change over) is replaced as usual: the server applied this change after it.
    var notOverNewer: Set<String> = []
    /// Paths journaled (an op each, or their running op marked to run again) in the same
    /// transaction as these records, by `JournalStore.finish`: entries a push batch's outcome
    /// says may have changed with no event of their own (what a moved or re-made directory
    /// no longer holds). Written with the batch's records: both or neither.
    var lookAgain: [String] = []

    func adding(local: LocalRecord) -> IndexUpdate {
        var copy = self
        copy.locals.append(local)
        return copy
    }

    /// Leaves out every record of `paths` (their `preparedOver` no longer holds).
    mutating func leaveOut(_ paths: Set<String>) {
        bases.removeAll { paths.contains($0.path) }
        locals.removeAll { paths.contains($0.path) }
        removedLocals.removeAll { paths.contains($0) }
        for path in paths { preparedOver[path] = nil }
        notOverNewer.subtract(paths)
    }
}

/// An update of one path, to be applied only over the base it was planned against.
struct GuardedUpdate: Sendable {
    var path: String
    var update: IndexUpdate
    var ifBase: BaseRecord?
    /// A second path whose base must still be this one too (a rename's departure: its
    /// tombstone must not overwrite a revision a push recorded there meanwhile), or nil.
    var alsoIfBase: (path: String, base: BaseRecord?)? = nil
}

/// A download renamed into place, its rename durable now: its intent is dropped, and its
/// local record (the stat since the rename) written only while the path's base is still
/// `base`, the one the download recorded (a push may have recorded a newer revision since:
/// that one stays).
struct LandedDownload: Sendable {
    var local: LocalRecord
    var base: BaseRecord
}

/// Carries an `IndexUpdate` across the module boundary without exposing its fields.
public struct IndexUpdateBox: Sendable {
    var value: IndexUpdate
    init(_ value: IndexUpdate) { self.value = value }
    public static let empty = IndexUpdateBox(IndexUpdate())
}
