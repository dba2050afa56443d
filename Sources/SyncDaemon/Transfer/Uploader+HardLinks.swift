/// A write through one name of a file with hard links changes its other names too, and
/// inotify tells only of the name written through. Once such a file's change is committed,
/// the other names the index records under its inode are looked at again (each prepares as
/// changed, or as unchanged by its stat alone when it was not in fact written).
extension Uploader {
    /// Adds to `result`'s update (`lookAgain`, journaled with the batch's records) the other
    /// recorded names of the files in `linked` whose change was committed (or found on the
    /// server already). A refused one adds nothing: two names refused for good would otherwise
    /// journal each other for ever. A name committed in this batch is looked at again too unless
    /// it was read with the stat of every committed name of its inode (read before a write
    /// through another name landed, it was sent without it). If the index cannot be read, they
    /// are left to the next rescan (logged): the batch's own outcome stands.
    func lookAtOtherNames(of linked: [String: LocalRecord], into result: inout PushBatchResult) {
        let done = linked.filter { owner, _ in
            switch result.outcome(of: owner) {
            case .committed, .unchanged: true
            case .conflict, .failed, nil: false
            }
        }
        guard !done.isEmpty else { return }
        do {
            let names = try index.files.names(folder: folder, inodes: Set(done.values.map(\.inode)))
            let others = Self.namesToLookAt(names, committed: done)
            guard !others.isEmpty else { return }
            logger.debug(
                "written through a hard link: its other names are looked at again",
                metadata: ["paths": "\(done.keys.sorted())", "others": "\(others.count)"])
            result.update.lookAgain += others
        } catch {
            logger.warning(
                "cannot read the other names of files with hard links (the next rescan looks at them): \(error)",
                metadata: ["paths": "\(done.keys.sorted())"])
        }
    }

    /// Of `names` (every name recorded with the inodes of `committed`), those to look at
    /// again: all but the committed names read with the stat of every committed name of their
    /// inode. Pure.
    static func namesToLookAt(_ names: Set<String>, committed: [String: LocalRecord]) -> [String] {
        names.filter { name in
            guard let mine = committed[name] else { return true }
            return committed.values.contains { $0.inode == mine.inode && !sameStat($0, mine) }
        }.sorted()
    }

    /// The same file as far as a stat read through either name tells.
    private static func sameStat(_ a: LocalRecord, _ b: LocalRecord) -> Bool {
        a.size == b.size && a.mtimeNs == b.mtimeNs && a.ctimeNs == b.ctimeNs
    }
}
