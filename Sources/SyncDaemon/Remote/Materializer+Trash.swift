import Foundation
import Glibc
import SyncCore

extension Materializer {
    /// Moves a removed file or symlink into the trash (kept for the retention
    /// period), beneath `<trashRoot>/<stamp>/` by the same no-symlink rule; a
    /// directory is removed only when it is empty. `expected`: the file or symlink must
    /// still be what the removal was planned against (a write since then is the user's
    /// new version: it stays, `changedMeanwhile`). It is compared once it is in the trash,
    /// not before the move: a write landing between a check and the rename would have gone
    /// to the trash with it (seen in a kill -9 convergence run).
    func moveToTrash(_ path: String, kind: EntryKind, stamp: String, expected: FileStat? = nil) throws(DaemonError) {
        let source: Located
        do {
            source = try folder.parent(of: path)
        } catch {
            // Its parent is gone, or is not a directory we may enter: nothing of ours to remove.
            if error.code == .io, error.errnoValue != ENOENT { throw error }
            return
        }
        if kind == .directory {
            if unlinkat(source.directory.fd, source.name, AT_REMOVEDIR) != 0 {
                if errno == ENOENT { return }
                if errno == ENOTEMPTY || errno == EEXIST {
                    throw DaemonError(.notEmpty, "directory not empty", path: path)
                }
                throw .io("rmdir", path)
            }
            return
        }
        let bin = trashRoot + "/" + stamp
        do {
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        } catch {
            throw DaemonError(.io, "cannot create trash directory: \(error)", path: path, underlying: error)
        }
        let destination: Located
        do {
            destination = try FolderRoot(bin).parent(of: path, create: true)
        } catch {
            throw DaemonError(.io, "cannot create trash directory: \(error)", path: path, underlying: error)
        }
        if source.rename(to: destination) == 0 {
            if let expected { try putBackIfWritten(destination, to: source, expected: expected) }
            return
        }
        if errno == ENOENT {
            // Gone since it was planned: plan again, as for any other change.
            if expected != nil { throw DaemonError(.changedMeanwhile, "changed meanwhile", path: path) }
            return
        }
        guard errno == EXDEV else { throw .io("move to trash", path) }
        if let expected { try checkUnchanged(source, expected: expected) }
        try copyAcrossDevices(source, to: destination)
        guard unlinkat(source.directory.fd, source.name, 0) == 0 || errno == ENOENT else { throw .io("unlink", path) }
    }

    /// The file as it reached the trash, against what its removal was planned on (all but
    /// its ctime, which the rename itself changed): one written since goes back to its place,
    /// `changedMeanwhile`. If something new took that place meanwhile, the written version
    /// stays in the trash.
    private func putBackIfWritten(_ trashed: Located, to origin: Located, expected: FileStat) throws(DaemonError) {
        guard case .found(var now) = trashed.lstat() else { return }
        now.ctimeNs = expected.ctimeNs
        guard now != expected, trashed.renameNoReplace(to: origin) == 0 else { return }
        throw DaemonError(.changedMeanwhile, "written while it was moved to the trash", path: origin.relative)
    }

    /// The trash is on another file system: copy the file or link, never following it.
    private func copyAcrossDevices(_ source: Located, to destination: Located) throws(DaemonError) {
        let path = source.relative
        guard case .found(let stat) = source.lstat() else { return }
        if stat.kind == .symlink {
            let target: String
            do { target = try source.readLink() } catch { throw error }
            guard symlinkat(target, destination.directory.fd, destination.name) == 0 else { throw .io("copy to trash", path) }
            return
        }
        let input: Int32
        let output: Int32
        do {
            input = try source.open(flags: O_RDONLY)
        } catch {
            throw error
        }
        defer { close(input) }
        do {
            output = try destination.open(flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        } catch {
            throw error
        }
        defer { close(output) }
        try copyBytes(from: input, to: output, path: path)
        guard fsync(output) == 0 else { throw .io("fsync trash copy", path) }
    }
}
