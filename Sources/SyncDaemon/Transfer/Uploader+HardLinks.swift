/// A write through one name of a file with hard links changes its other names too, and
/// inotify tells only of the name written through. The other names the index records under
/// the inode of a changed file that has several are looked at again after this batch (each
/// prepares as changed, or unchanged when it was not in fact that file any more).
extension Uploader {
    /// Adds to `staged`'s update (`lookAgain`, journaled with the batch's records) the other
    /// recorded names of its changed files that have hard links. If the index cannot be read,
    /// they are left to the next rescan (logged): the batch's own changes go on.
    func lookAtOtherNames(of staged: inout StagedPush) {
        var linked: [String: UInt64] = [:]
        for list in staged.changes.values {
            for prepared in list where prepared.hardLinked {
                if let local = prepared.local { linked[local.path] = local.inode }
            }
        }
        guard !linked.isEmpty else { return }
        do {
            let others = try index.files.otherNames(folder: folder, of: linked)
                .filter { staged.inputs[$0] == nil }
            guard !others.isEmpty else { return }
            logger.debug(
                "written through a hard link: its other names are looked at again",
                metadata: ["paths": "\(linked.keys.sorted())", "others": "\(others.count)"])
            staged.result.update.lookAgain += others
        } catch {
            logger.warning(
                "cannot read the other names of files with hard links (the next rescan looks at them): \(error)",
                metadata: ["paths": "\(linked.keys.sorted())"])
        }
    }
}
