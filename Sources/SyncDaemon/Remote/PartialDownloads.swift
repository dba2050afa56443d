import Foundation
import Glibc
import SyncCore
import Synchronization

/// A big file's download cut short (the server gone, an error it answered, the engine
/// stopping): where its staging file is, with the chunks written so far. The download's next
/// try, for the same content, goes on from there instead of fetching every chunk again. A
/// value only: nothing is held open (a kept partial does not keep the folder's file system busy).
struct PartialDownload: Sendable {
    let path: String
    let contentHash: String
    /// The staging file's path in the folder.
    let staging: String
    /// The file system and inode of the staging file's directory when it was kept.
    let directory: DirectoryIdentity
    /// The lengths of the entry's chunks written, in order, each checked against its hash;
    /// their sum is where the next chunk goes.
    let lengths: [Int]
    /// The staging file as it was kept (`sealing`). Its bytes are trusted by this stat alone
    /// (inode, size, mtime, ctime) when `sealed`; else only its inode says which file it is.
    let stat: FileStat
    /// Kept by `sealing` (a cut try, saved at a stop): trusted by its stat. False for a
    /// checkpoint of a download under way (`DownloadCheckpoints`), read back after a kill or a
    /// power cut: its chunks are checked against their hashes when its try takes it.
    let sealed: Bool
    let keptAt: ContinuousClock.Instant

    var offset: Int64 { Int64(lengths.reduce(0, +)) }
    /// How many of the entry's chunks are written.
    var chunksDone: Int { lengths.count }

    /// `self`, kept as of `time`.
    func kept(at time: ContinuousClock.Instant) -> PartialDownload {
        PartialDownload(
            path: path, contentHash: contentHash, staging: staging, directory: directory, lengths: lengths, stat: stat,
            sealed: sealed, keptAt: time)
    }

    /// `self` with only its first chunks' `lengths` (those its check found right; still not
    /// trusted by its stat).
    func keeping(lengths: [Int]) -> PartialDownload {
        PartialDownload(
            path: path, contentHash: contentHash, staging: staging, directory: directory, lengths: lengths, stat: stat,
            sealed: sealed, keptAt: keptAt)
    }

    /// How far the download of `entry` into the staging file `fd` got: a checkpoint, not
    /// trusted by its stat (`sealed` false). Nil if the file or its directory cannot be told.
    static func checkpoint(_ entry: WireEntry, staging: Located, fd: Int32, lengths: [Int]) -> PartialDownload? {
        guard let directory = DirectoryIdentity(staging.directory), let stat = FileStat.fstat(fd) else { return nil }
        return PartialDownload(
            path: entry.path, contentHash: entry.contentHash, staging: staging.relative, directory: directory,
            lengths: lengths, stat: stat, sealed: false, keptAt: .now)
    }

    /// The staging file `fd` of `entry`, cut short after `lengths`, made fit to be trusted by
    /// its stat and durable: its mtime is set to the entry's, so that it differs from its ctime
    /// (which the `futimens` sets to now), and it is fsynced (a stop saves it for the next
    /// start). A write by anyone since, even within the same clock tick, sets the mtime to now:
    /// the stat differs. Nil where that does not hold: a file system whose mtime and ctime come
    /// from different clocks (`LocalChunks.timestampsShareOneClock`), an mtime that came out
    /// equal to the ctime, or a staging file whose directory cannot be told.
    static func sealing(_ entry: WireEntry, staging: Located, fd: Int32, lengths: [Int]) -> PartialDownload? {
        guard LocalChunks.timestampsShareOneClock(fd), let directory = DirectoryIdentity(staging.directory) else { return nil }
        var times = Materializer.times(mtimeNs: entry.mtimeNs)
        guard futimens(fd, &times) == 0, fsync(fd) == 0, let stat = FileStat.fstat(fd), stat.mtimeNs != stat.ctimeNs
        else { return nil }
        return PartialDownload(
            path: entry.path, contentHash: entry.contentHash, staging: staging.relative, directory: directory,
            lengths: lengths, stat: stat, sealed: true, keptAt: .now)
    }

    /// The first of `lengths` whose bytes in `fd`, read from its start, hash to `entry`'s
    /// chunks in order: the prefix a checkpoint's staging file really holds (a kill may have
    /// come before the page cache reached the disk; anyone may have written to it since).
    /// Stops at a length no chunk can have (a damaged row). Chunks are read in order and
    /// hashed `width` at a time (on up to 4 cores, at most 4 × 4 MiB held: about 3 s per GiB
    /// on one core here); throws
    /// `CancellationError` when its task is cancelled (a stop does not wait for it);
    /// `progress` gets each chunk's length once it is checked.
    static func checkedPrefix(
        _ lengths: [Int], in fd: Int32, of entry: WireEntry, width: Int = min(ProcessInfo.processInfo.activeProcessorCount, 4),
        progress: @Sendable (Int64) async -> Void
    ) async throws -> [Int] {
        let chunks = Array(zip(lengths, entry.chunks))
        var checked: [Int] = []
        try await withThrowingTaskGroup(of: (index: Int, matches: Bool).self) { group in
            var next = 0, offset: off_t = 0, inFlight = 0
            var done: [Int: Bool] = [:]
            /// Reads the next chunk and hashes it beside; false once there is none to read.
            func launch() -> Bool {
                guard next < chunks.count else { return false }
                let (length, hash) = chunks[next]
                guard length > 0, length <= FastCDC.standard.maxSize else { return false }
                var bytes = [UInt8](repeating: 0, count: length)
                let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, offset) }
                guard read == length else { return false }
                let index = next, chunk = bytes
                group.addTask { (index, Hashing.sha256Hex(chunk) == hash) }
                next += 1
                offset += off_t(length)
                inFlight += 1
                return true
            }
            var reading = true
            while true {
                try Task.checkCancellation()
                while reading && inFlight < max(1, width) { reading = launch() }
                guard inFlight > 0, let result = try await group.next() else { break }
                inFlight -= 1
                done[result.index] = result.matches
                // In order: up to the first chunk that does not match.
                while let matches = done.removeValue(forKey: checked.count) {
                    guard matches else {
                        group.cancelAll()
                        return
                    }
                    let length = chunks[checked.count].0
                    checked.append(length)
                    await progress(Int64(length))
                }
            }
        }
        return checked
    }
}

struct DirectoryIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64

    /// `directory`'s file system and inode; nil if they cannot be read.
    init?(_ directory: DirectoryHandle) {
        guard let identity = directory.identity else { return nil }
        self.init(device: identity.device, inode: identity.inode)
    }

    init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

/// A kept partial download's staging file, open for writing again, handed to its next try.
struct ResumedDownload {
    let partial: PartialDownload
    let staging: Located
    let fd: Int32
}

/// The partial downloads of one folder, kept for the download's next try.
///
/// A kept one is given up (its staging file removed) when its path is deleted or gets other
/// content, when it had no try for `lifetime` while one could come (looked at every second:
/// `expire`, or `touch` while the server does not answer or the folder is paused), and when
/// more than `limit` are kept. When the daemon stops they are saved in the index for its next
/// start (`save`, `restore`); a folder taken out of the configuration, or moved, gives them up.
/// A big download under way records checkpoints there too (`DownloadCheckpoints`): after a
/// kill or a power cut they are kept again, their chunks checked against their hashes at their
/// try. Any other staging file is removed by the next start's first scan. Staging files are
/// found and removed through the folder's root, never following
/// a symlink: one whose directory was moved out of the folder is not touched there.
final class PartialDownloads: Sendable {
    private let kept = Mutex([String: PartialDownload]())
    /// Only a download with at least this much written is kept: below, fetching it again costs little.
    static let keepFrom: Int64 = 8 << 20
    static let lifetime = Duration.seconds(600)
    static let limit = 4

    /// Keeps `partial` for its path's next try; false if it is not worth keeping (the caller
    /// then removes its staging file as before). An older one of the path, and one past the
    /// limit, are given up.
    func keep(_ partial: PartialDownload, in folder: FolderRoot) -> Bool {
        guard partial.chunksDone > 0, partial.offset >= Self.keepFrom else { return false }
        let dropped = kept.withLock { table -> [PartialDownload] in
            var dropped = Self.expire(&table, now: .now)
            if let old = table.updateValue(partial, forKey: partial.path) { dropped.append(old) }
            while table.count > Self.limit, let oldest = table.values.min(by: { $0.keptAt < $1.keptAt }) {
                if let removed = table.removeValue(forKey: oldest.path) { dropped.append(removed) }
            }
            return dropped
        }
        for partial in dropped { Self.discard(partial, in: folder) }
        return true
    }

    /// The partial download of `entry`'s path and content, open again, when its staging file is
    /// still as it was kept (same stat, same name; a checkpoint: the same inode, its chunks for
    /// the caller to check, `checkedPrefix`) in the directory that is at `target`'s place now;
    /// nil if there is none. One for other content, or changed, moved or renamed since, is
    /// given up. The caller owns the fd.
    func take(_ entry: WireEntry, beside target: Located, in folder: FolderRoot) -> ResumedDownload? {
        let (found, expired) = kept.withLock { table in
            let expired = Self.expire(&table, now: .now)
            return (table.removeValue(forKey: entry.path), expired)
        }
        for partial in expired { Self.discard(partial, in: folder) }
        guard let found else { return nil }
        guard found.contentHash == entry.contentHash, let resumed = Self.reopen(found, beside: target, in: folder) else {
            Self.discard(found, in: folder)
            return nil
        }
        return resumed
    }

    /// Gives up the partial downloads that `entries` (a feed page, retries) make useless: at a
    /// path deleted (or moved away), below a directory deleted, and at a path that gets other
    /// content. Else a kept staging file would linger, and keep a directory deleted on
    /// another device from being removed here.
    func giveUp(supersededBy entries: [WireEntry], in folder: FolderRoot) {
        let dropped = kept.withLock { table -> [PartialDownload] in
            guard !table.isEmpty else { return [] }
            var dropped: [PartialDownload] = []
            for entry in entries {
                for partial in table.values where Self.supersedes(entry, partial) {
                    if let removed = table.removeValue(forKey: partial.path) { dropped.append(removed) }
                }
            }
            return dropped
        }
        for partial in dropped { Self.discard(partial, in: folder) }
    }

    static func supersedes(_ entry: WireEntry, _ partial: PartialDownload) -> Bool {
        if entry.path == partial.path {
            return entry.deleted || entry.kind != .file || entry.contentHash != partial.contentHash
        }
        return entry.deleted && partial.path.hasPrefix(entry.path + "/")
    }

    /// No try can come now (the server does not answer, the folder is paused): the time
    /// with no try starts over.
    func touch(now: ContinuousClock.Instant = .now) {
        kept.withLock { table in
            for (path, partial) in table { table[path] = partial.kept(at: now) }
        }
    }

    /// Gives up the partial downloads that had no try for `lifetime` (as of `now`).
    func expire(in folder: FolderRoot, now: ContinuousClock.Instant = .now) {
        let old = kept.withLock { table in
            table.isEmpty ? [] : Self.expire(&table, now: now)
        }
        for partial in old { Self.discard(partial, in: folder) }
    }

    /// Gives up every kept partial download.
    func discardAll(in folder: FolderRoot) {
        let all = kept.withLock { table in
            defer { table.removeAll() }
            return Array(table.values)
        }
        for partial in all { Self.discard(partial, in: folder) }
    }

    var count: Int { kept.withLock { $0.count } }

    /// Whether the staging file at `path` (in the folder) is a kept partial download's.
    func holds(staging path: String) -> Bool {
        kept.withLock { table in table.values.contains { $0.staging == path } }
    }

    /// The daemon stops: the kept partial downloads (each fsynced when it was kept) are saved
    /// in the index for the next start, their staging files left in place. If they cannot
    /// be saved, they are given up. Returns how many were saved.
    func save(into store: PartialDownloadStore, folder id: String, root: FolderRoot) throws -> Int {
        let all = kept.withLock { table in
            defer { table.removeAll() }
            return Array(table.values)
        }
        do {
            try store.save(folder: id, all)
        } catch {
            for partial in all { Self.discard(partial, in: root) }
            throw error
        }
        return all.count
    }

    /// At start, before the first scan: the folder's rows in `store` are read and kept again
    /// (`restore(_:in:)`), and the rows become those kept, in one transaction (a kill before
    /// it leaves the rows as they were; one after, before their try, loses nothing). Returns
    /// how many rows there were, and those kept.
    func restore(from store: PartialDownloadStore, folder id: String, root: FolderRoot) throws -> (saved: Int, kept: [PartialDownload]) {
        let saved = try store.all(folder: id)
        guard !saved.isEmpty else { return (0, []) }
        let kept = restore(saved, in: root)
        try store.save(folder: id, kept)
        return (saved.count, kept)
    }

    /// At start, before the first scan: the partial downloads saved at the last stop (or the
    /// checkpoints of those under way at a kill) are kept again where their staging file is
    /// still there to be found (through the root, in the directory kept, the same inode); the
    /// stat, or the chunks' hashes, are looked at when their next try takes them.
    /// At most `limit`, the most written. The first scan removes the staging files not held
    /// (`holds`): those of the others too. Returns those kept.
    func restore(_ saved: [PartialDownload], in folder: FolderRoot) -> [PartialDownload] {
        // Those found first, then the most written: rows whose staging file is gone (a partial
        // given up since its checkpoint) take no place.
        let found = saved.filter { partial in
            guard partial.chunksDone > 0, let located = Self.locate(partial, in: folder), case .found(let named) = located.lstat()
            else { return false }
            return named.kind == .file && named.inode == partial.stat.inode
        }
        let partials = found.sorted { $0.offset > $1.offset }.prefix(Self.limit)
        kept.withLock { table in
            for partial in partials { table[partial.path] = partial }
        }
        return Array(partials)
    }

    /// The staging file of `partial`, reached from the root without a symlink, still under a
    /// staging name in the directory kept and at `target`'s place, opened (non-blocking: a
    /// FIFO put at its name does not hold the caller up; read-write for a checkpoint, whose
    /// chunks its try reads back) with the stat kept, or, for a checkpoint, the inode kept;
    /// and with no other name (a hard link made since would be written through).
    private static func reopen(_ partial: PartialDownload, beside target: Located, in folder: FolderRoot) -> ResumedDownload? {
        guard let located = locate(partial, in: folder), DirectoryIdentity(target.directory) == partial.directory
        else { return nil }
        let fd: Int32
        do { fd = try located.open(flags: (partial.sealed ? O_WRONLY : O_RDWR) | O_NONBLOCK) } catch { return nil }
        var links = stat()
        guard let now = FileStat.fstat(fd), now.kind == .file, now.inode == partial.stat.inode,
            !partial.sealed || now == partial.stat, fstat(fd, &links) == 0, links.st_nlink == 1
        else {
            close(fd)
            return nil
        }
        return ResumedDownload(partial: partial, staging: located, fd: fd)
    }

    /// Where `partial`'s staging file is named, in the directory it was kept in; nil if that
    /// cannot be reached from the root without a symlink, or is another directory now.
    private static func locate(_ partial: PartialDownload, in folder: FolderRoot) -> Located? {
        let located: Located
        do { located = try folder.parent(of: partial.staging) } catch { return nil }
        guard located.name.hasPrefix(Scanner.stagingPrefix), !located.name.hasPrefix(Materializer.trashStagingPrefix),
            DirectoryIdentity(located.directory) == partial.directory
        else { return nil }
        return located
    }

    private static func expire(_ table: inout [String: PartialDownload], now: ContinuousClock.Instant) -> [PartialDownload] {
        let old = table.values.filter { now - $0.keptAt > lifetime }
        for partial in old { table.removeValue(forKey: partial.path) }
        return old
    }

    /// Removes the staging file, if its name (reached from the root) still holds the file kept.
    static func discard(_ partial: PartialDownload, in folder: FolderRoot) {
        guard let located = locate(partial, in: folder), case .found(let named) = located.lstat(), named.kind == .file,
            named.inode == partial.stat.inode
        else { return }
        unlinkat(located.directory.fd, located.name, 0)
    }
}
