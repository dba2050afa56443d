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
    /// Commits whose outcome this update records (or that the server refused whole):
    /// their outbox rows go with it.
    var settledCommits: [String] = []

    func adding(local: LocalRecord) -> IndexUpdate {
        var copy = self
        copy.locals.append(local)
        return copy
    }
}

/// An update of one path, to be applied only over the base it was planned against.
struct GuardedUpdate: Sendable {
    var path: String
    var update: IndexUpdate
    var ifBase: BaseRecord?
}

/// Carries an `IndexUpdate` across the module boundary without exposing its fields.
public struct IndexUpdateBox: Sendable {
    var value: IndexUpdate
    init(_ value: IndexUpdate) { self.value = value }
    public static let empty = IndexUpdateBox(IndexUpdate())
}
