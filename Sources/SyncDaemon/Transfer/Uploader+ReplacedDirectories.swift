import Foundation

/// A directory that went away (deleted, or moved out of the folder) and was made again at
/// its path before its op ran (a download of a file below it makes its parents) is found
/// there, and prepares as unchanged. The entries recorded below the old one are then gone
/// without an event of their own: each is looked at again, in the batch after this one.
extension Uploader {
    /// Adds to `staged`'s follow-ups what the index has below each prepared directory that is
    /// not the one recorded at its path. If the index cannot be read, the directory's op is
    /// set aside (it runs again, and finds the same directory) instead.
    func lookBelowReplacedDirectories(_ staged: inout StagedPush, preparations: [String: Preparation], records: [String: LocalRecord]) async {
        let replaced = preparations.filter { Self.isReplacedDirectory($0.key, recorded: records[$0.key], preparation: $0.value) }
            .map(\.key).sorted()
        guard !replaced.isEmpty else { return }
        do {
            let below = try index.base.live(folder: folder, under: replaced)
            for (directory, entries) in below {
                let paths = entries.map(\.path).filter { $0 != directory }
                logger.debug("a directory was made again: what was below it is looked at again",
                             metadata: ["path": "\(directory)", "entries": "\(paths.count)"])
                staged.result.followUps += paths
            }
        } catch {
            logger.warning("cannot read what was below a directory made again; its op runs again",
                           metadata: ["paths": "\(replaced)", "error": "\(error)"])
            await setAside(Set(replaced), of: &staged)
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
