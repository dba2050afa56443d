import SyncCore

extension RemoteFeed {
    /// The delete-wave guard for remote deletes: a page that would delete too much of the
    /// folder waits for approval. This device's own deletes (`me`) are not judged again:
    /// the local guard let them go, and the feed can bring them back before their push is
    /// recorded (the bases still live), which held a plain `rm -r` for approval.
    func deletesAllowed(_ entries: [WireEntry], me: String?) throws -> Bool {
        // What a server-side move leaves behind is not lost either.
        let tombstones = entries.filter { $0.deleted && $0.movedTo == nil && ($0.device != me || me == nil) }.map(\.path)
        guard !tombstones.isEmpty else { return true }
        let bases = try index.records.read(folder: folder, paths: tombstones).base
        // Content that arrives at another path in the same page was moved, not lost.
        let arriving = Set(entries.filter { !$0.deleted && $0.kind == .file }.map(\.contentHash))
        let deletes = bases.values.filter { !$0.deleted && !($0.kind == .file && arriving.contains($0.contentHash)) }.count
        let mustWait = deleteGuard.mustWait(deletes: deletes, liveEntries: try index.base.liveCount(folder: folder))
        switch deleteHold.judge(deletes: deletes, mustWait: mustWait) {
        case .go:
            return true
        case .hold(let newly):
            if newly { logger.warning("remote delete wave waits for `syncctl approve-deletes`", metadata: ["count": "\(deletes)"]) }
            return false
        }
    }

    /// `syncctl approve-deletes`: the held remote wave (if any) goes ahead with the next
    /// page. Returns how many deletes it holds.
    func approveDeletes() -> Int {
        deleteHold.approve()
    }
}
