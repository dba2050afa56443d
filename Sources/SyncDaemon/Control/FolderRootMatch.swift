import Foundation

/// Whether an absolute path a user gave (`syncctl explain`, `history`, `retry --path`, or
/// the working directory syncctl sends) is inside a folder's root. The root is matched as
/// configured first; then, with the symlinks above the path's last name resolved, against
/// the root with its own resolved: a shell's working directory is the resolved one
/// (`getcwd`), so `cd ~/Sync/docs` with `~` a symlink sent a path no root began with, and
/// the command said "not inside a synced folder". The last name is never resolved: a
/// symlink inside the folder is the path asked about, not what it points to.
enum FolderRootMatch {
    /// The path below `root` that `absolute` names ("" for the root itself), or nil.
    static func relative(_ absolute: String, to root: String) -> String? {
        let given = (absolute as NSString).standardizingPath
        if let below = below(given, root) { return below }
        let resolvedRoot = (root as NSString).resolvingSymlinksInPath
        let parent = (given as NSString).deletingLastPathComponent
        let name = (given as NSString).lastPathComponent
        guard parent != given else { return nil }  // "/"
        let resolvedParent = (parent as NSString).resolvingSymlinksInPath
        let resolved = resolvedParent == "/" ? "/" + name : resolvedParent + "/" + name
        for candidate in [root, resolvedRoot] {
            if let below = below(resolved, candidate) { return below }
        }
        return nil
    }

    private static func below(_ path: String, _ root: String) -> String? {
        if path == root { return "" }
        guard path.hasPrefix(root + "/") else { return nil }
        return String(path.dropFirst(root.count + 1))
    }
}
