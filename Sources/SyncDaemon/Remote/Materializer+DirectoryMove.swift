import Glibc
import SyncCore

extension Materializer {
    /// Renames the directory `from` (still the one with inode `inode`) to the free path `to`,
    /// for a remote move, and makes the rename durable (both parent directories fsynced)
    /// before the caller records it: a power cut after the record must not bring the old
    /// path back. Returns the directory's stat at its new path.
    func moveDirectory(_ from: String, to: String, inode: UInt64) throws(DaemonError) -> FileStat {
        let source = try locate(from)
        let target = try locate(to)
        guard case .found(let now) = source.lstat(), now.kind == .directory, now.inode == inode else {
            throw DaemonError(.changedMeanwhile, "replaced meanwhile", path: from)
        }
        guard source.renameNoReplace(to: target) == 0 else {
            if errno == EEXIST || errno == ENOTEMPTY { throw DaemonError(.changedMeanwhile, "created meanwhile", path: to) }
            throw .io("rename", to)
        }
        do {
            try FileAssembler.syncRenames(in: [source.directory, target.directory])
        } catch {
            // Not durable, so not to be recorded: put it back (the caller goes one by one).
            guard target.renameNoReplace(to: source) == 0 else {
                throw DaemonError(
                    .io, "\(error); and renaming it back failed: \(SystemCallError(call: "rename", errno: errno))", path: to,
                    underlying: error)
            }
            throw error
        }
        guard case .found(let stat) = target.lstat(), stat.kind == .directory else { throw .io("stat", to) }
        return stat
    }

    /// Renames a directory moved by `moveDirectory` back, when its records could not be
    /// written, and makes that durable too (the records still say it is at `from`).
    func moveDirectoryBack(_ to: String, from: String) throws(DaemonError) {
        let moved = try locate(to)
        let back = try locate(from)
        guard moved.renameNoReplace(to: back) == 0 else { throw .io("rename back to \(from)", to) }
        try FileAssembler.syncRenames(in: [moved.directory, back.directory])
    }
}
