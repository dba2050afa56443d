import Foundation
import Glibc
import SyncCore
import Synchronization

/// A big file's download cut short by the server (gone, unreachable, an error): its staging
/// file, still open, with the chunks written so far. The download's next try, for the same
/// content, goes on from there instead of fetching every chunk again.
struct PartialDownload: Sendable {
    let path: String
    let contentHash: String
    let staging: Located
    /// The staging file, open for writing; closed when the partial is taken over or discarded.
    let fd: Int32
    /// How many of the entry's chunks are written, in order, each checked against its hash.
    let chunksDone: Int
    /// Those chunks' lengths; their sum is where the next chunk goes.
    let lengths: [Int]
    /// The staging file as it was kept (`sealing`). Its bytes are trusted by this stat alone
    /// (inode, size, mtime, ctime).
    let stat: FileStat
    let keptAt: ContinuousClock.Instant

    var offset: Int64 { Int64(lengths.reduce(0, +)) }

    init(
        path: String, contentHash: String, staging: Located, fd: Int32, chunksDone: Int, lengths: [Int], stat: FileStat,
        keptAt: ContinuousClock.Instant
    ) {
        self.path = path
        self.contentHash = contentHash
        self.staging = staging
        self.fd = fd
        self.chunksDone = chunksDone
        self.lengths = lengths
        self.stat = stat
        self.keptAt = keptAt
    }

    /// `other`, kept as of `time`.
    init(keeping other: PartialDownload, at time: ContinuousClock.Instant) {
        self.init(
            path: other.path, contentHash: other.contentHash, staging: other.staging, fd: other.fd,
            chunksDone: other.chunksDone, lengths: other.lengths, stat: other.stat, keptAt: time)
    }

    /// The staging file `fd` of `entry`, cut short after `lengths`, made fit to be trusted by
    /// its stat: its mtime is set to the entry's, so that it differs from its ctime (which the
    /// `futimens` sets to now). A write by anyone since, even within the same clock tick,
    /// sets the mtime to now: the stat differs. Nil where that does not hold: a file system
    /// whose mtime and ctime come from different clocks (`LocalChunks.timestampsShareOneClock`),
    /// or an mtime that came out equal to the ctime.
    static func sealing(_ entry: WireEntry, staging: Located, fd: Int32, lengths: [Int]) -> PartialDownload? {
        guard LocalChunks.timestampsShareOneClock(fd) else { return nil }
        var times = Materializer.times(mtimeNs: entry.mtimeNs)
        guard futimens(fd, &times) == 0, let stat = FileStat.fstat(fd), stat.mtimeNs != stat.ctimeNs else { return nil }
        return PartialDownload(
            path: entry.path, contentHash: entry.contentHash, staging: staging, fd: fd, chunksDone: lengths.count,
            lengths: lengths, stat: stat, keptAt: .now)
    }
}

/// The partial downloads of one folder, kept for the download's next try in this process.
/// A kept one is given up (its staging file removed) when its path is deleted or gets other
/// content, when it had no try for `lifetime` while one could come (looked at every second:
/// `expire`, or `touch` while the server does not answer or the folder is paused), and when
/// more than `limit` are kept. When the folder's engine stops they are saved in the index
/// for the next start (`persist`, `restore`). A staging file left by a kill is removed by the
/// next start's first scan, as every staging file is.
final class PartialDownloads: Sendable {
    private let kept = Mutex([String: PartialDownload]())
    /// Only a download with at least this much written is kept: below, fetching it again costs little.
    static let keepFrom: Int64 = 8 << 20
    static let lifetime = Duration.seconds(600)
    static let limit = 4

    /// Keeps `partial` for its path's next try; false if it is not worth keeping (the caller
    /// then removes it as before). An older one of the path, and one past the limit, are given up.
    func keep(_ partial: PartialDownload) -> Bool {
        guard partial.chunksDone > 0, partial.offset >= Self.keepFrom else { return false }
        let dropped = kept.withLock { table -> [PartialDownload] in
            var dropped = Self.expire(&table)
            if let old = table.updateValue(partial, forKey: partial.path) { dropped.append(old) }
            while table.count > Self.limit, let oldest = table.values.min(by: { $0.keptAt < $1.keptAt }) {
                if let removed = table.removeValue(forKey: oldest.path) { dropped.append(removed) }
            }
            return dropped
        }
        dropped.forEach(Self.discard)
        return true
    }

    /// The partial download of `path` with `contentHash`, still as it was kept and still in
    /// `target`'s directory, handed over to the caller (who then owns its fd); nil if there is
    /// none. One for other content, or changed, moved or renamed since, is given up.
    func take(path: String, contentHash: String, beside target: Located) -> PartialDownload? {
        let (found, expired) = kept.withLock { table in
            let expired = Self.expire(&table)
            return (table.removeValue(forKey: path), expired)
        }
        expired.forEach(Self.discard)
        guard let found else { return nil }
        guard found.contentHash == contentHash, Self.isIntact(found, beside: target) else {
            Self.discard(found)
            return nil
        }
        return found
    }

    /// Gives up the partial downloads that `entries` (a feed page, retries) make useless: at a
    /// path deleted (or moved away), below a directory deleted, and at a path that gets other
    /// content. Else a kept staging file would linger, and keep a directory deleted on
    /// another device from being removed here.
    func giveUp(supersededBy entries: [WireEntry]) {
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
        dropped.forEach(Self.discard)
    }

    static func supersedes(_ entry: WireEntry, _ partial: PartialDownload) -> Bool {
        if entry.path == partial.path {
            return entry.deleted || entry.kind != .file || entry.contentHash != partial.contentHash
        }
        return entry.deleted && partial.path.hasPrefix(entry.path + "/")
    }

    /// The engine stops: each kept partial download is made durable (`fsync`) and saved in
    /// the index, its staging file left in place for the next start (`restore`). One that
    /// cannot be made durable is given up; if they cannot be saved, all are. Returns how many
    /// were saved.
    func persist(into store: PartialDownloadStore, folder: String) throws -> Int {
        let all = kept.withLock { table in
            defer { table.removeAll() }
            return Array(table.values)
        }
        var durable: [PartialDownload] = []
        for partial in all {
            if fsync(partial.fd) == 0 { durable.append(partial) } else { Self.discard(partial) }
        }
        do {
            try store.save(
                folder: folder,
                durable.map {
                    SavedPartialDownload(
                        path: $0.path, contentHash: $0.contentHash, staging: $0.staging.relative, lengths: $0.lengths, stat: $0.stat)
                })
        } catch {
            durable.forEach(Self.discard)
            throw error
        }
        for partial in durable { close(partial.fd) }
        return durable.count
    }

    /// At start, before the first scan: the partial downloads saved at the last stop are kept
    /// again where their staging file is still as it was saved (same stat, under a staging
    /// name, reached without a symlink). One that is not is left to the first scan, which
    /// removes staging files it does not hold (`holds`). Returns how many were kept.
    func restore(_ saved: [SavedPartialDownload], in folder: FolderRoot) -> Int {
        var restored: [PartialDownload] = []
        for partial in saved {
            let located: Located
            do { located = try folder.parent(of: partial.staging) } catch { continue }
            guard located.name.hasPrefix(Scanner.stagingPrefix) else { continue }
            let fd: Int32
            // (Non-blocking: a FIFO put at its name does not hold the start up.)
            do { fd = try located.open(flags: O_WRONLY | O_NONBLOCK) } catch { continue }
            guard let now = FileStat.fstat(fd), now == partial.stat else {
                close(fd)
                continue
            }
            restored.append(PartialDownload(
                path: partial.path, contentHash: partial.contentHash, staging: located, fd: fd,
                chunksDone: partial.lengths.count, lengths: partial.lengths, stat: now, keptAt: .now))
        }
        let replaced = kept.withLock { table in
            restored.compactMap { table.updateValue($0, forKey: $0.path) }
        }
        replaced.forEach(Self.discard)
        return restored.count
    }

    /// Whether the staging file at `path` (in the folder) is a kept partial download's.
    func holds(staging path: String) -> Bool {
        kept.withLock { table in table.values.contains { $0.staging.relative == path } }
    }

    /// No try can come now (the server does not answer, the folder is paused): the time
    /// with no try starts over.
    func touch(now: ContinuousClock.Instant = .now) {
        kept.withLock { table in
            for path in table.keys { table[path] = table[path].map { PartialDownload(keeping: $0, at: now) } }
        }
    }

    /// Gives up the partial downloads that had no try for `lifetime` (as of `now`).
    func expire(now: ContinuousClock.Instant = .now) {
        let old = kept.withLock { table in
            table.isEmpty ? [] : Self.expire(&table, now: now)
        }
        old.forEach(Self.discard)
    }

    deinit { discardAll() }

    /// Gives up every kept partial download (the engine stops).
    func discardAll() {
        let all = kept.withLock { table in
            defer { table.removeAll() }
            return Array(table.values)
        }
        all.forEach(Self.discard)
    }

    var count: Int { kept.withLock { $0.count } }

    /// Whether the staging file is untouched since it was kept, still under its name, in the
    /// directory that is at the target's place now.
    private static func isIntact(_ partial: PartialDownload, beside target: Located) -> Bool {
        guard let now = FileStat.fstat(partial.fd), now == partial.stat,
            case .found(let named) = partial.staging.lstat(), named.inode == now.inode,
            let held = partial.staging.directory.identity, let there = target.directory.identity,
            held == there
        else { return false }
        return true
    }

    private static func expire(_ table: inout [String: PartialDownload], now: ContinuousClock.Instant = .now) -> [PartialDownload] {
        let old = table.values.filter { now - $0.keptAt > lifetime }
        for partial in old { table.removeValue(forKey: partial.path) }
        return old
    }

    /// Removes the staging file (only if its name still holds the file kept open) and closes it.
    static func discard(_ partial: PartialDownload) {
        if let open = FileStat.fstat(partial.fd), case .found(let named) = partial.staging.lstat(), named.inode == open.inode {
            unlinkat(partial.staging.directory.fd, partial.staging.name, 0)
        }
        close(partial.fd)
    }
}
