import Foundation
import SyncConfig

/// Whether an absolute path a user gave (`syncctl explain`, `history`, `restore`, `retry
/// --path`, or the working directory syncctl sends) is inside a folder's root. The path is
/// normalized by its text alone (`.`, `..`, `//`) and matched against the root as configured
/// first; then, with the directories above its last name resolved by the kernel
/// (`realpath`), against the root resolved too: a shell's working directory is the resolved
/// one (`getcwd`), so `cd ~/Sync/docs` with `~` a symlink sent a path no root began with, and
/// the command said "not inside a synced folder". The last name is never resolved: a symlink
/// inside the folder is the path asked about, not what it points to.
enum FolderRootMatch {
    /// The path below `root` that `absolute` names ("" for the root itself), or nil.
    static func relative(_ absolute: String, to root: String) -> String? {
        let given = PathExpansion.normalize(absolute)
        if let below = below(given, root) { return below }
        guard given != "/", let resolvedRoot = PathExpansion.realPath(root) else { return nil }
        // The directories above the last name, resolved as far as they exist (a path asked
        // about may name a directory that is not there).
        var names = given.split(separator: "/").map(String.init)
        var missing = [names.removeLast()]
        while !names.isEmpty {
            if let real = PathExpansion.realPath("/" + names.joined(separator: "/")) {
                let path = (real == "/" ? "" : real) + "/" + missing.reversed().joined(separator: "/")
                return below(path, resolvedRoot) ?? below(path, root)
            }
            missing.append(names.removeLast())
        }
        return nil
    }

    private static func below(_ path: String, _ root: String) -> String? {
        if path == root { return "" }
        guard path.hasPrefix(root + "/") else { return nil }
        return String(path.dropFirst(root.count + 1))
    }
}
