/// A write through one name of a file with hard links changes its other names too, and
/// inotify tells only of the name written through. Once such a file's change is committed,
/// the other names the index records under its inode are looked at again (each prepares as
/// changed, or as unchanged by its stat alone when it was not in fact written).
extension Uploader {
    /// The inodes of `changes`' files that had other names when they were read (op path →
    /// inode): `StagedPush.hardLinked`.
    static func hardLinked(_ changes: [String: [PreparedChange]]) -> [String: UInt64] {
        var linked: [String: UInt64] = [:]
        for (owner, list) in changes {
            for prepared in list where prepared.hardLinked {
                if let local = prepared.local { linked[owner] = local.inode }
            }
        }
        return linked
    }

    /// Adds to `result`'s update (`lookAgain`, journaled with the batch's records) the other
    /// recorded names of the files in `linked` whose change was committed (or found on the
    /// server already). A refused one adds nothing: two names refused for good would otherwise
    /// journal each other for ever. If the index cannot be read, they are left to the next
    /// rescan (logged): the batch's own outcome stands.
    func lookAtOtherNames(of linked: [String: UInt64], into result: inout PushBatchResult) {
        let done = linked.filter { owner, _ in
            switch result.outcome(of: owner) {
            case .committed, .unchanged: true
            case .conflict, .failed, nil: false
            }
        }
        guard !done.isEmpty else { return }
        do {
            let others = try index.files.otherNames(folder: folder, of: done)
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
}
