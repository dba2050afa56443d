import Foundation
import SyncCore

extension Preparer {
    /// A path that got here by a move from `from`: the move itself, when the
    /// server can make it (the old path is synced, the new one is free, and a
    /// file is the same inode with the same size and mtime as the synced old
    /// one, so its content moved unchanged). Nil: push it as a plain change.
    func prepareMove(path: String, from: String, localFrom: LocalRecord?, baseFrom: BaseRecord?, base: BaseRecord?)
        -> PreparedChange?
    {
        guard let baseFrom, !baseFrom.deleted, base.map(\.deleted) ?? true,
            case .found(let stat) = folder.lstat(path), stat.kind == baseFrom.kind
        else { return nil }
        let local: LocalRecord
        if stat.kind == .directory {
            local = LocalRecord(
                path: path, kind: .directory, inode: stat.inode, size: 0, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs,
                mode: stat.mode, contentHash: Hashing.contentHash(chunks: []), chunks: [], symlinkTarget: nil)
        } else {
            guard var moved = localFrom, moved.kind == stat.kind, moved.inode == stat.inode, moved.size == stat.size,
                moved.mtimeNs == stat.mtimeNs, moved.contentHash == baseFrom.contentHash
            else { return nil }
            // A rename changes the ctime, nothing else.
            moved.path = path
            moved.ctimeNs = stat.ctimeNs
            local = moved
        }
        return PreparedChange(
            change: .move(from: from, to: path, kind: stat.kind, baseRev: baseFrom.rev), local: local, source: .none)
    }
}
