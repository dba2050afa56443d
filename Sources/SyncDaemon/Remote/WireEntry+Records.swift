import SyncCore

/// The index records a remote entry becomes once applied.
extension WireEntry {
    /// The base both sides now agree on.
    var baseRecord: BaseRecord {
        BaseRecord(
            path: path, kind: kind, rev: rev, contentHash: contentHash, deleted: deleted,
            mode: BaseRecord.mode(kind: kind, mode: mode, deleted: deleted))
    }

    /// What is on disk at its path, as written from it (`stat` of the result; the lengths of
    /// its chunks when the assembly knows them).
    func localRecord(stat: FileStat, chunkLengths: [Int]? = nil) -> LocalRecord {
        LocalRecord(
            path: path, kind: kind, inode: stat.inode, size: stat.size, mtimeNs: stat.mtimeNs,
            ctimeNs: stat.ctimeNs, mode: stat.mode, contentHash: contentHash, chunks: chunks,
            symlinkTarget: symlinkTarget, chunkLengths: chunkLengths)
    }

    /// `localRecord(stat:)` for a file whose bytes `previous` described too (adopted: the same
    /// content was already here): the chunk lengths of `previous` kept when its chunks are the
    /// entry's. Not where syncd set the mtime itself (a move, a mode): a write just before
    /// would be hidden behind a settled stat.
    func localRecord(stat: FileStat, keepingLengthsOf previous: LocalRecord?) -> LocalRecord {
        localRecord(stat: stat, chunkLengths: previous.flatMap { $0.chunks == chunks ? $0.chunkLengths : nil })
    }

    /// The tombstone a move leaves at `old` when the feed does not carry one.
    func departure(from old: String) -> WireEntry {
        WireEntry(
            path: old, kind: kind, size: 0, mtimeNs: 0, mode: mode, chunks: [], contentHash: contentHash,
            deleted: true, rev: rev, device: device, movedTo: path)
    }
}
