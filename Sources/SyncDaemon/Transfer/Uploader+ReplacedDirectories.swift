import Foundation

/// A directory that went away (deleted, or moved out of the folder) and was made again at
/// its path before its op ran (a download of a file below it makes its parents) is found
/// there, and prepares as unchanged. The entries recorded below the old one that are not on
/// disk now went with it, without an event of their own: each is looked at again, after
/// this batch (what is on disk below the new one has events, and its scan, of its own).
extension Uploader {
    /// Adds to `staged`'s update (`lookAgain`, journaled with the batch's records) the entries
    /// the index has below each of `replaced` (prepared directories that are not the ones
    /// recorded at their paths, `isReplacedDirectory`) that are missing on disk. If the index
    /// cannot be read, those directories' ops fail (shown) without recording the new
    /// directories, so that the next look finds them again.
    func lookBelow(replacedDirectories replaced: [String], of staged: inout StagedPush) async {
        let below: [String: [BaseRecord]]
        do {
            below = try index.base.live(folder: folder, under: replaced)
        } catch {
            await setAside(Set(replaced), of: &staged)
            for path in replaced {
                staged.result.settle(path, .failed(DaemonError(
                    .index, "cannot read what was below a directory made again: \(error)", path: path, underlying: error)))
            }
            return
        }
        for directory in replaced {
            let gone = (below[directory] ?? []).map(\.path).filter { path in
                guard path != directory, case .missing = preparer.folder.lstat(path) else { return false }
                return true
            }
            logger.debug(
                "a directory was made again: what went with the old one is looked at again",
                metadata: ["path": "\(directory)", "entries": "\(gone.count)"])
            staged.result.update.lookAgain += gone
        }
    }

    /// Whether `preparation` found at `path` a directory other than the recorded one
    /// (another inode). Pure.
    static func isReplacedDirectory(_ path: String, recorded: LocalRecord?, preparation: Preparation) -> Bool {
        guard let recorded, recorded.kind == .directory else { return false }
        let found: LocalRecord?
        switch preparation {
        case .unchanged(let local, _, _): found = local
        case .change(let list): found = list.first { $0.change.path == path }?.local
        case .unstable, .failed: found = nil
        }
        guard let found, found.kind == .directory else { return false }
        return found.inode != recorded.inode
    }
}
