import Foundation

/// A directory that went away (deleted, or moved out of the folder) and was made again at
/// its path before its op ran (a download of a file below it makes its parents) is found
/// there, and prepares as unchanged. The entries recorded below the old one that are not on
/// disk now went with it, without an event of their own: each is looked at again, after
/// this batch (what is on disk below the new one has events, and its scan, of its own).
extension Uploader {
    /// Adds to `staged`'s update (`lookAgain`, journaled with the batch's records) the entries
    /// the index has below each prepared directory that is not the one recorded at its path,
    /// and that are missing on disk. If the index cannot be read, the directory's op fails
    /// (shown) without recording the new directory, so that the next look finds it again.
    func lookBelowReplacedDirectories(_ staged: inout StagedPush, preparations: [String: Preparation], records: [String: LocalRecord]) async {
        let replaced = preparations.filter { Self.isReplacedDirectory($0.key, recorded: records[$0.key], preparation: $0.value) }
            .map(\.key).sorted()
        guard !replaced.isEmpty else { return }
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
        case .unchanged(let local, _): found = local
        case .change(let list): found = list.first { $0.change.path == path }?.local
        case .unstable, .failed: found = nil
        }
        guard let found, found.kind == .directory else { return false }
        return found.inode != recorded.inode
    }
}
