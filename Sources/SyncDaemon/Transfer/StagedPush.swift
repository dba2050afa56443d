/// A push batch read, hashed and with its chunks on the server, not yet committed
/// (`Uploader.stage`; `Uploader.commit` sends it).
///
/// The bulk lane stages its next batch while the one before commits, so a staged batch may
/// have been prepared against index rows that commit then changed: a tombstone's base
/// revision, the entries below a deleted directory. What each path's preparation read is
/// kept (`inputs`); before the commit, `setAside` sends back to the journal every path
/// whose rows are no longer what it read, to be prepared afresh in a later batch.
struct StagedPush: Sendable {
    /// What preparing one path read from the index.
    struct Inputs: Sendable, Equatable {
        var local: LocalRecord?
        var base: BaseRecord?
        /// The live entries below the path, when the preparation asked for them (`ordered`).
        var liveBelow: [BaseRecord]?

        /// Entries in path order, as they are kept here (the index returns them in any order).
        static func ordered(_ live: [BaseRecord]) -> [BaseRecord] { live.sorted { $0.path < $1.path } }
    }

    /// Fates decided so far (unchanged, unstable, failed, held, not sent) and their index rows.
    var result = PushBatchResult()
    /// The changes to commit, by the op path that sends them.
    var changes: [String: [PreparedChange]] = [:]
    /// Ops whose change another op sends (`follower → sender`).
    var followers: [String: String] = [:]
    var inputs: [String: Inputs] = [:]
    /// Files read with other names (hard links), changed or found on the server already, by op
    /// path: their other names are looked at once the batch's outcome is known
    /// (`Uploader.lookAtOtherNames`, which skips an op not committed or unchanged by then).
    var linked: [String: LocalRecord] = [:]

    var paths: [String] { Array(inputs.keys) }

    /// Sends back (fate `.deferred`: due now, no attempt counted) the ops in `stale`,
    /// with whatever they were to commit or record.
    mutating func setAside(_ stale: Set<String>) {
        guard !stale.isEmpty else { return }
        for path in stale {
            changes[path] = nil
            result.settle(path, .deferred(forgetMove: false))
        }
        result.update.locals.removeAll { stale.contains($0.path) }
        result.update.removedLocals.removeAll { stale.contains($0) }
        for path in stale { result.update.preparedOver[path] = nil }
        result.update.notOverNewer.subtract(stale)
    }

    /// The ops sending a tombstone for a path a download is landing at. A download records a
    /// file's rows first and renames it into place after (`download_intents` meanwhile): a
    /// preparation that looked at the disk in between read the file as deleted here, with
    /// the rows the download had just written as its base. Such a tombstone would delete the
    /// new version on the server, and its recorded outcome would drop the file's rows while
    /// the file stays: neither side would look at it again until a scan.
    /// `landing`: the paths with a download intent, read after the preparations (they hold
    /// back only the owners in `patient`: an intent left by a landing whose last record failed
    /// stays until the next start, and must not hold a delete back for good);
    /// `present`: whether something is at a path now (a download that landed since).
    static func meetingDownloads(
        _ changes: [String: [PreparedChange]], landing: Set<String>, patient: Set<String>, present: (String) -> Bool
    ) -> Set<String> {
        var meeting = Set<String>()
        for (owner, list) in changes {
            let waits = patient.contains(owner)
            let deleted = list.lazy.filter(\.change.deleted).map(\.change.path)
            if deleted.contains(where: { (waits && landing.contains($0)) || present($0) }) { meeting.insert(owner) }
        }
        return meeting
    }

    /// The ops sending a file at a path a remote delete is removing. A remote delete records
    /// the path's tombstone first and moves the file to the trash after (`delete_intents`
    /// meanwhile): a preparation that looked at the disk in between read the file as new here,
    /// over the tombstone. Sent, it would put the deleted file back on every device. Only an
    /// op's own path counts, prepared with no local record over a tombstone (`overTombstones`:
    /// nothing else can be in that window). Such an op waits while the file at its path is the
    /// very one a delete intent is removing (`removing`: inode and ctime, read after the
    /// preparations; a delete a kill cut short waits for the next start), or when nothing is
    /// there any more (`now`: looked at again, it then sends nothing). Anything else at the
    /// path (a new file, an edit, which changes the ctime) is the user's, and is sent.
    static func meetingDeletes(
        _ changes: [String: [PreparedChange]], overTombstones: Set<String>,
        removing: [String: RemovedFile], now: (String) -> FileStat?
    ) -> Set<String> {
        var meeting = Set<String>()
        for (owner, list) in changes where overTombstones.contains(owner) {
            guard list.contains(where: { $0.change.path == owner && !$0.change.deleted }) else { continue }
            guard let stat = now(owner) else {
                meeting.insert(owner)
                continue
            }
            if removing[owner]?.isStill(stat) == true { meeting.insert(owner) }
        }
        return meeting
    }

    /// The ops whose inputs differ from `now` (what the index holds at present).
    static func stale(_ inputs: [String: Inputs], now: [String: Inputs]) -> Set<String> {
        Set(inputs.compactMap { path, read in now[path] == read ? nil : path })
    }
}
