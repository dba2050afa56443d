import CLinux
import Foundation
import Glibc
import SyncCore

/// A downloaded file written to a staging file next to its target: complete, with its
/// mode and mtime, but not yet durable nor in place (see `FileAssembler.stage`).
struct StagedFile: Sendable {
    let entry: WireEntry
    let target: Located
    let staging: Located
    let stat: FileStat
}

extension FileAssembler {
    /// Writes `entry` from `chunks` (already checked against their hashes) into a staging
    /// file beside its target, with the entry's size, mode and mtime, without fsync: a
    /// batch of them is made durable with `syncFileSystems(holding:)` before any is recorded
    /// or renamed into place.
    /// `open`: the batch's directories, resolved once each.
    func stage(_ entry: WireEntry, chunks: [String: [UInt8]], reusing open: inout OpenDirectories) throws(DaemonError)
        -> StagedFile
    {
        let path = entry.path
        let target = try open.parent(of: path, in: materializer.folder, create: true)
        // Made with its mode (writable by its owner while it is written: some network file
        // systems check the mode at each write): a `fchmod` only when that or the umask changed it.
        let mode = Materializer.safeMode(entry.mode, fallback: 0o644)
        let (staging, fd) = try openStaging(beside: target, mode: mode | S_IRUSR | S_IWUSR)
        var keep = false
        defer {
            close(fd)
            if !keep { unlinkat(staging.directory.fd, staging.name, 0) }
        }
        var holes = false
        for hash in entry.chunks {
            guard let bytes = chunks[hash] else {
                throw DaemonError(.io, "chunk \(hash.prefix(12)) was not fetched", path: path)
            }
            if try materializer.writeOrSkip(fd, bytes, path: path) { holes = true }
        }
        // Written whole, the file has its size (checked below); a skipped chunk of zeros, a hole
        // at the end perhaps, needs the size set.
        if holes {
            // (The chunks must add up to the size: setting it would hide it if they did not.)
            guard lseek(fd, 0, SEEK_CUR) == off_t(entry.size) else {
                throw DaemonError(.hashMismatch, "assembled size differs from the entry's", path: path)
            }
            guard ftruncate(fd, off_t(entry.size)) == 0 else { throw DaemonError.io("set size", path) }
        }
        var times = Materializer.times(mtimeNs: entry.mtimeNs)
        guard futimens(fd, &times) == 0 else { throw DaemonError.io("set mtime", path) }
        guard var staged = FileStat.fstat(fd), staged.size == entry.size else {
            throw DaemonError(.hashMismatch, "assembled size differs from the entry's", path: path)
        }
        if staged.mode & 0o7777 != UInt32(mode) {
            guard fchmod(fd, mode) == 0, let chmodded = FileStat.fstat(fd) else { throw DaemonError.io("chmod", path) }
            staged = chmodded
        }
        keep = true
        return StagedFile(entry: entry, target: target, staging: staging, stat: staged)
    }

    /// A new, empty staging file in `target`'s directory, open for writing, made with `mode`
    /// (less what the umask takes). A name taken already (staging names are a count, which
    /// someone may guess) is passed over for the next one, a few times.
    func openStaging(beside target: Located, mode: mode_t = 0o600) throws(DaemonError) -> (staging: Located, fd: Int32) {
        var attempt = 0
        while true {
            let staging = target.sibling(Materializer.stagingName())
            do {
                return (staging, try staging.open(flags: O_WRONLY | O_CREAT | O_EXCL, mode: mode))
            } catch where (error.underlying as? SystemCallError)?.errno == EEXIST && attempt < 8 {
                attempt += 1
            }
        }
    }

    /// Makes everything written in `directories` durable: one `syncfs(2)` per file system
    /// they are on. Mostly that is the folder's; a file system mounted inside the folder is
    /// synced too (a `syncfs` of the folder's alone would leave its files in the page cache
    /// while they are recorded as landed). Returns how many file systems were synced.
    @discardableResult
    static func syncFileSystems(holding directories: [DirectoryHandle]) throws(DaemonError) -> Int {
        var seen = Set<ObjectIdentifier>(), devices = Set<UInt64>()
        for directory in directories where seen.insert(ObjectIdentifier(directory)).inserted {
            guard let identity = directory.identity else { throw DaemonError.io("stat a staging directory", "") }
            guard devices.insert(identity.device).inserted else { continue }
            guard clinux_syncfs(directory.fd) == 0 else { throw DaemonError.io("syncfs", "") }
        }
        return devices.count
    }

    /// Makes renames into `directories` durable, before the downloads they placed are
    /// recorded as landed (their intents dropped): a file system that does not order a rename
    /// before a later fsync of the index (btrfs logs only the inode it syncs) would otherwise
    /// lose the rename in a power cut while the index says the file landed, and the next start
    /// would read the path as deleted here, or its old version as edited here, and push that.
    /// A few directories are each fsynced; more, each file system once (`syncFileSystems`).
    static func syncRenames(in directories: [DirectoryHandle]) throws(DaemonError) {
        var seen = Set<ObjectIdentifier>()
        let distinct = directories.filter { seen.insert(ObjectIdentifier($0)).inserted }
        guard distinct.count <= Self.directoriesSyncedOneByOne else {
            try syncFileSystems(holding: distinct)
            return
        }
        for directory in distinct where fsync(directory.fd) != 0 {
            let code = errno
            // Removed since (a run of deletes removes a directory after moving its files out):
            // nothing in it to make durable; its parent's fsync makes the removal durable.
            if directory.isRemoved { continue }
            throw DaemonError.io("fsync a directory", "", code)
        }
    }

    /// Up to this many directories of renames are fsynced one by one, rather than their file systems.
    static let directoriesSyncedOneByOne = 8

    /// Whether `staged`'s directory is still the one at its path in the folder (the same
    /// file system and inode). The file is renamed into place through the directory held
    /// since it was staged: one the user moved or replaced since would take the file where
    /// the records do not say.
    func isInPlace(_ staged: StagedFile) -> Bool {
        let now: Located
        do { now = try materializer.folder.parent(of: staged.entry.path) } catch { return false }
        guard let held = staged.target.directory.identity, let found = now.directory.identity else { return false }
        return held == found
    }

    /// Renames a staged file into the empty place it was planned for; returns what is at
    /// the path now (the staged stat if the user wrote to it in between: its mismatch makes
    /// the next look rehash). Throws `changedMeanwhile` if something is there now: the
    /// rename itself refuses to replace anything (no look before it, which could only be
    /// out of date by the time of the rename).
    func place(_ staged: StagedFile) throws(DaemonError) -> FileStat {
        let path = staged.entry.path
        guard staged.staging.renameNoReplace(to: staged.target) == 0 else {
            if errno == ENOENT { throw DaemonError(.changedMeanwhile, "its directory went away", path: path) }
            if errno == EEXIST { throw DaemonError(.changedMeanwhile, "created meanwhile", path: path) }
            throw DaemonError.io("rename into place", path)
        }
        guard case .found(let final) = staged.target.lstat() else { throw DaemonError.io("stat", path) }
        let same = final.inode == staged.stat.inode && final.size == staged.stat.size && final.mtimeNs == staged.stat.mtimeNs
        return same ? final : staged.stat
    }

    /// Removes a staged file that will not be placed.
    func discard(_ staged: StagedFile) {
        unlinkat(staged.staging.directory.fd, staged.staging.name, 0)
    }
}
