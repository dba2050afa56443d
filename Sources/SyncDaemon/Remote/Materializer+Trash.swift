import Foundation
import Glibc
import SyncCore

extension Materializer {
    /// Moves a removed file or symlink into the trash (kept for the retention
    /// period), beneath `<trashRoot>/<stamp>/` by the same no-symlink rule; a
    /// directory is removed only when it is empty. `expected`: the file or symlink must
    /// still be what the removal was planned against (a write since then is the user's
    /// new version: it stays, `changedMeanwhile`). It is compared before the move (every
    /// stat field) and again once moved (all but ctime, which the rename changes): a write
    /// landing between the first check and the rename went to the trash with the file (seen
    /// in a kill -9 convergence run), and is now put back.
    /// Returns the directories whose entries it changed (for a barrier that makes the removal
    /// durable: `FileAssembler.syncRenames`).
    @discardableResult
    func moveToTrash(_ path: String, kind: EntryKind, stamp: String, expected: FileStat? = nil, trashName: String? = nil)
        throws(DaemonError) -> [DirectoryHandle]
    {
        let source: Located
        do {
            source = try folder.parent(of: path)
        } catch {
            // Its parent is gone, or is not a directory we may enter: nothing of ours to remove.
            if error.code == .io, error.errnoValue != ENOENT { throw error }
            return []
        }
        if kind == .directory {
            if let expected {
                // The very directory planned: anything else at the path now (a file, a
                // directory made anew) is planned again.
                switch source.lstat() {
                case .missing: return []
                case .found(let now) where now.kind == .directory && now.inode == expected.inode: break
                case .found, .unsupported: throw DaemonError(.changedMeanwhile, "changed meanwhile", path: path)
                case .failed(let code): throw .io("lstat", path, code)
                }
            }
            if unlinkat(source.directory.fd, source.name, AT_REMOVEDIR) != 0 {
                if errno == ENOENT { return [] }
                if errno == ENOTDIR { throw DaemonError(.changedMeanwhile, "changed meanwhile", path: path) }
                if errno == ENOTEMPTY || errno == EEXIST {
                    throw DaemonError(.notEmpty, "directory not empty", path: path)
                }
                throw .io("rmdir", path)
            }
            return [source.directory]
        }
        if let expected { try checkUnchanged(source, expected: expected) }
        beforeTrashMove?()
        // The directories new trash directories were made in: the barrier makes those durable
        // too, or a power cut could leave a trashed file in lost+found. When nothing is moved
        // into them after all, they are made durable now: nothing of this path's is in them,
        // but a later move into them finds them there, and would not return them.
        var made: [DirectoryHandle] = []
        let moved: [DirectoryHandle]
        do {
            let inTrash = trashName.map { name in source.sibling(name).relative } ?? path
            moved = try moveIntoTrash(source, path: path, as: inTrash, stamp: stamp, expected: expected, made: &made)
        } catch {
            try FileAssembler.syncRenames(in: made)
            throw error
        }
        guard !moved.isEmpty else {
            try FileAssembler.syncRenames(in: made)
            return []
        }
        return moved + made
    }

    /// `moveToTrash` for a file or symlink once checked: returns the two directories whose
    /// entries it changed (none when the file was gone already), and adds to `made` those new
    /// trash directories were made in.
    private func moveIntoTrash(
        _ source: Located, path: String, as inTrash: String, stamp: String, expected: FileStat?, made: inout [DirectoryHandle]
    ) throws(DaemonError) -> [DirectoryHandle] {
        let destination: Located
        try makeTrashRoot(made: &made, for: path)
        do {
            destination = try FolderRoot(trashRoot).parent(of: stamp + "/" + inTrash, create: true, made: &made)
        } catch {
            throw DaemonError(.io, "cannot create trash directory: \(error)", path: path, underlying: error)
        }
        // Out of the way first: into the trash, or, when the trash is on another file system,
        // to a staging name beside it, copied to the trash from there once it is checked.
        var moved = destination
        var staged = false
        var done = source.rename(to: destination) == 0
        if !done && errno == EXDEV {
            // Named after the file as it goes in the trash (a file left so by a kill is moved
            // there by the next start, `FolderHousekeeping.keepInTrash`, under that name).
            moved = source.sibling(Self.trashStagingName(for: destination.name))
            staged = true
            done = source.rename(to: moved) == 0
            if !done && errno == ENAMETOOLONG {
                // (A file system whose names are shorter than NAME_MAX: eCryptfs.)
                moved = source.sibling(Self.trashStagingName(for: nil))
                done = source.rename(to: moved) == 0
            }
        }
        if !done {
            guard errno == ENOENT else { throw .io("move to trash", path) }
            // Gone since it was planned: plan again, as for any other change.
            if expected != nil { throw DaemonError(.changedMeanwhile, "changed meanwhile", path: path) }
            return []
        }
        if let expected { try putBackIfWritten(moved, to: source, expected: expected) }
        guard staged else { return [source.directory, destination.directory] }
        CrashPoint.reached(.beforeTrashCopy, path: path)
        do {
            try copyAcrossDevices(moved, to: destination, removing: path)
        } catch {
            // Not in the trash (its file system full?): the file goes back to its place, never
            // left under a staging name.
            guard moved.renameNoReplace(to: source) == 0 else {
                throw .io("cannot be copied to the trash (\(error)), and is kept as \(moved.relative)", path)
            }
            throw DaemonError(error.code, error.message, path: path, underlying: error)
        }
        // The copy's name in the trash durable before the file goes from the folder.
        guard fsync(destination.directory.fd) == 0 else { throw .io("fsync the trash", path) }
        guard unlinkat(moved.directory.fd, moved.name, 0) == 0 || errno == ENOENT else { throw .io("unlink", path) }
        return [source.directory, destination.directory]
    }

    /// Makes the trash root (`<state_dir>/trash/<folder>`) and any missing directory above
    /// it, adding to `made` each directory one was made in (its fsync makes the new one
    /// durable). The state directory is the daemon's own: no containment rule applies.
    func makeTrashRoot(made: inout [DirectoryHandle], for path: String) throws(DaemonError) {
        var missing: [String] = []
        var walked = trashRoot
        var st = stat()
        while !walked.isEmpty, walked != "/", lstat(walked, &st) != 0 {
            guard errno == ENOENT else { throw .io("stat the trash", path) }
            missing.append(walked)
            walked = (walked as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() {
            // The parent is opened first: a directory made with no handle on its parent would
            // never be made durable (a later move finds it there).
            let parent = (directory as NSString).deletingLastPathComponent
            let fd = Glibc.open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw .io("open \(parent)", path) }
            let handle = DirectoryHandle(fd: fd)
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw .io("create trash directory \(directory)", path) }
            made.append(handle)
        }
    }

    /// Makes the entries of `path`'s directory durable (a file put back from the trash); a
    /// directory gone since has nothing to make durable.
    func syncParent(of path: String) throws(DaemonError) {
        let located: Located
        do {
            located = try folder.parent(of: path)
        } catch {
            if error.code == .io, error.errnoValue == ENOENT { return }
            throw error
        }
        guard fsync(located.directory.fd) == 0 else { throw .io("fsync a directory", path) }
    }

    /// The file as it was moved, against what its removal was planned on (all but its
    /// ctime, which the rename itself changed): one written since, or that cannot be
    /// compared, goes back to its place, `changedMeanwhile`. One that cannot go back
    /// (something new took its place) is an error that names the path, not a silent delete.
    private func putBackIfWritten(_ moved: Located, to origin: Located, expected: FileStat) throws(DaemonError) {
        switch moved.lstat() {
        case .missing: return
        case .found(var now):
            now.ctimeNs = expected.ctimeNs
            if now == expected { return }
        case .unsupported, .failed: break
        }
        guard moved.renameNoReplace(to: origin) == 0 else {
            throw .io("written while it was moved to the trash, and kept there: put back", origin.relative)
        }
        throw DaemonError(.changedMeanwhile, "written while it was moved to the trash", path: origin.relative)
    }

    /// The trash is on another file system: copy the file or link, never following it, under
    /// a temporary name beside `destination`, durably, then renamed to it (never over anything
    /// there). A kill mid-copy leaves no part of a file under a trashed file's name; what a
    /// failure leaves is removed. `removed`: the path whose delete this is.
    private func copyAcrossDevices(_ source: Located, to destination: Located, removing removed: String) throws(DaemonError) {
        let path = source.relative
        guard case .found(let stat) = source.lstat() else { return }
        let temporary = destination.sibling(Self.stagingName())
        do throws(DaemonError) {
            try copy(source, stat: stat, to: temporary)
            CrashPoint.reached(.duringTrashCopy, path: removed)
            guard temporary.renameNoReplace(to: destination) == 0 else { throw DaemonError.io("rename into the trash", path) }
        } catch {
            guard unlinkat(temporary.directory.fd, temporary.name, 0) == 0 || errno == ENOENT else {
                throw DaemonError(error.code, error.message + "; a partial copy stays in the trash", path: path, underlying: error)
            }
            throw error
        }
    }

    private func copy(_ source: Located, stat: FileStat, to destination: Located) throws(DaemonError) {
        let path = source.relative
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
