import CLinux
import Crypto
import Foundation
import Glibc
import SyncCore

/// Puts a remote file's bytes on disk: assembled in a staging file beside its target
/// (copied from a local file with the same content, taken from local chunks, or fetched),
/// verified, fsynced, and renamed into place only if the target is still what was planned
/// against. Paths are resolved through the `Materializer` (beneath the root, no symlink
/// followed).
struct FileAssembler: Sendable {
    let materializer: Materializer
    /// Big downloads cut short, kept for their next try (nil: none kept).
    var partials: PartialDownloads? = nil
    /// Where a big download under way records how far it got (nil: nowhere).
    var checkpoints: DownloadCheckpoints? = nil

    /// Assembles `entry` in a staging file (copying from `copySource` when a
    /// local file already has this content, else taking each chunk from
    /// `localChunks` or fetching it), verifies it, fsyncs, applies mode and
    /// mtime, re-checks the target and renames into place. `beforeRename`
    /// records the index first (echo suppression). Returns the final stat, how
    /// many bytes were fetched and the chunks' lengths (nil: they do not add up to the size).
    func writeFile(
        _ entry: WireEntry, expected: FileStat?, copySource: String?, localChunks: LocalChunks?,
        fetch: @escaping @Sendable (String) async throws -> [UInt8], lookahead: Int = 4,
        progress: @Sendable (Int64) async -> Void,
        beforeRename: (FileStat) throws -> Void
    ) async throws -> (stat: FileStat, fetched: Int64, chunkLengths: [Int]?, directory: DirectoryHandle, resumedAt: Int64) {
        let path = entry.path
        let target = try materializer.locate(path, create: true)
        // The chunks an earlier try of this content wrote, kept (`PartialDownloads`); not
        // when a local file with the content is copied whole.
        let folder = materializer.folder
        var resumed = partials?.take(entry, beside: target, in: folder)
        if let taken = resumed, copySource != nil {
            close(taken.fd)
            PartialDownloads.discard(taken.partial, in: folder)
            resumed = nil
        }
        // A checkpoint's chunks count as done as they are checked.
        let checkedByHash = resumed.map { !$0.partial.sealed } ?? false
        if let taken = resumed, checkedByHash {
            resumed = try await checked(taken, of: entry, in: folder, progress: progress)
        }
        let (staging, fd) = try resumed.map { ($0.staging, $0.fd) } ?? openStaging(beside: target)
        // false once the staging file is renamed into place, or kept for the next try.
        var remove = true
        // Whether the index may hold a row of this path's (a checkpoint of this try or of an
        // earlier one, or one kept at the start, taken or given up above), and whether this
        // try is kept for the next: if not, the row goes (once landed, right after the rename:
        // a kill up to it found the file whole, and went on from its last checkpoint).
        let mayHaveRow = entry.size >= min(PartialDownloads.keepFrom, checkpoints?.step ?? .max)
        var keptForNextTry = false, fdOpen = true
        defer {
            if fdOpen { close(fd) }
            if remove { unlinkat(staging.directory.fd, staging.name, 0) }
            if mayHaveRow && !keptForNextTry { checkpoints?.clear(path: path) }
        }
        var fetched: Int64 = 0
        // Each chunk's length as written (or, for a copy, as the copy was chunked to check it).
        var lengths: [Int] = resumed?.partial.lengths ?? []
        lengths.reserveCapacity(entry.chunks.count)
        let resumedAt = resumed?.partial.offset ?? 0
        var writeback = Writeback(fd: fd, from: resumedAt)
        let copied = copySource.flatMap { copy(from: $0, to: fd, expecting: entry) }
        if let copied {
            lengths = copied
        } else {
            if resumed == nil {
                guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw DaemonError.io("truncate", path) }
            } else {
                // (Nothing past the kept chunks: a chunk of zeros is skipped by a seek, not written.)
                guard ftruncate(fd, off_t(resumedAt)) == 0 else { throw DaemonError.io("truncate", path) }
                guard lseek(fd, off_t(resumedAt), SEEK_SET) == off_t(resumedAt) else { throw DaemonError.io("seek", path) }
                // Its row now says what a kill from here on would find: checked by hash (the
                // writes to come change the stat a stop sealed).
                if let taken = resumed { checkpoints?.record(entry, staging: staging, fd: fd, lengths: taken.partial.lengths) }
                if !checkedByHash { await progress(resumedAt) }
            }
            let first = resumed?.partial.chunksDone ?? 0
            var nextCheckpoint = resumedAt + (checkpoints?.step ?? 0)
            let wrote: (_ lengths: [Int], _ offset: Int64) -> Void = { lengths, offset in
                guard let checkpoints, offset >= nextCheckpoint else { return }
                checkpoints.record(entry, staging: staging, fd: fd, lengths: lengths)
                nextCheckpoint = offset + checkpoints.step
            }
            do {
                try await fetchChunks(
                    entry, from: first, into: fd, localChunks: localChunks, fetch: fetch, lookahead: lookahead,
                    progress: progress, lengths: &lengths, fetched: &fetched, writeback: &writeback, wrote: wrote)
            } catch {
                // Cut short by the fetch (the server gone, an error it answered, the engine
                // stopping): what is written waits for the next try, in this process or the
                // next. Not after an error of this device's own (a write, a chunk that did not
                // match its hash: `DaemonError`).
                if let partials, !(error is DaemonError), !lengths.isEmpty,
                    let kept = PartialDownload.sealing(entry, staging: staging, fd: fd, lengths: lengths),
                    partials.keep(kept, in: folder)
                {
                    remove = false
                    keptForNextTry = true
                    // Until the stop saves it sealed: after a kill it is checked by its hashes.
                    checkpoints?.record(entry, staging: staging, fd: fd, lengths: lengths)
                }
                throw error
            }
            // Every chunk accounted for (a resumed try starts where the kept lengths end).
            guard lseek(fd, 0, SEEK_CUR) == off_t(entry.size) else {
                throw DaemonError(.hashMismatch, "assembled size differs from the entry's", path: path)
            }
            // A file that ends in a hole: its size comes from the entry, not from a write.
            guard ftruncate(fd, off_t(entry.size)) == 0 else { throw DaemonError.io("set size", path) }
        }
        guard fchmod(fd, Materializer.safeMode(entry.mode, fallback: 0o644)) == 0 else {
            throw DaemonError.io("chmod", path)
        }
        var times = Materializer.times(mtimeNs: entry.mtimeNs)
        guard futimens(fd, &times) == 0 else { throw DaemonError.io("set mtime", path) }
        guard fsync(fd) == 0 else { throw DaemonError.io("fsync", path) }
        guard let staged = FileStat.fstat(fd), staged.size == entry.size else {
            throw DaemonError(.hashMismatch, "assembled size differs from the entry's", path: path)
        }
        // Lengths that do not add up to the size describe nothing (the record keeps none).
        let chunkLengths = lengths.reduce(0, +) == Int(entry.size) ? lengths : nil
        // Recorded first (an fsync: milliseconds), then the target checked right before the
        // rename: a write by the user during the record is seen, not replaced (the caller
        // puts the records back and plans again).
        try beforeRename(staged)
        try materializer.checkUnchanged(target, expected: expected)
        // The version replaced is let go of off this task: its page cache is freed with its
        // last reference, inside the rename otherwise (0.2 s per GiB here).
        let replaced = Self.holdOpen(target, expected: expected, beside: fd)
        defer { if let replaced { Self.closeLater(replaced) } }
        // Closed before the rename: its close-after-write event is then the staging name's,
        // which the watcher skips, not the target path's after its rename's echo (bench runs
        // saw that event journaled as a local change, and 1 GiB hashed again: 3.5 s).
        close(fd)
        fdOpen = false
        // Into an empty place only when that is what was planned: a file the user made
        // there meanwhile is not replaced (plan again).
        guard (expected == nil ? staging.renameNoReplace(to: target) : staging.rename(to: target)) == 0 else {
            // Its directory went away meanwhile (moved or deleted here): plan again.
            if errno == ENOENT { throw DaemonError(.changedMeanwhile, "its directory went away", path: path) }
            if errno == EEXIST { throw DaemonError(.changedMeanwhile, "created meanwhile", path: path) }
            throw DaemonError.io("rename into place", path)
        }
        remove = false
        guard case .found(let final) = target.lstat() else { throw DaemonError.io("stat", path) }
        // The user may have written to it in between: then the staged stat is what we
        // know holds the downloaded bytes, and its mismatch makes the next look rehash.
        return (final.isUnwritten(since: staged) ? final : staged, fetched, chunkLengths, target.directory, resumedAt)
    }

    /// `taken`, a checkpoint kept after a kill, with only its chunks that hash right (none:
    /// given up, nil). Cancelled meanwhile (the engine stops): kept as it was for the next try.
    private func checked(
        _ taken: ResumedDownload, of entry: WireEntry, in folder: FolderRoot, progress: @Sendable (Int64) async -> Void
    ) async throws -> ResumedDownload? {
        let lengths: [Int]
        do {
            lengths = try await PartialDownload.checkedPrefix(taken.partial.lengths, in: taken.fd, of: entry, progress: progress)
        } catch {
            close(taken.fd)
            if partials?.keep(taken.partial.kept(at: .now), in: folder) != true { PartialDownloads.discard(taken.partial, in: folder) }
            throw error
        }
        guard !lengths.isEmpty else {
            close(taken.fd)
            PartialDownloads.discard(taken.partial, in: folder)
            return nil
        }
        return ResumedDownload(partial: taken.partial.keeping(lengths: lengths), staging: taken.staging, fd: taken.fd)
    }

    /// Writes `entry`'s chunks from the `first` on, in order, at `fd`'s offset: each taken
    /// from `localChunks` or fetched (checked against its hash as it arrives). `lengths`
    /// has each chunk's length once it is written, so a try cut short says how far it got.
    private func fetchChunks(
        _ entry: WireEntry, from first: Int, into fd: Int32, localChunks: LocalChunks?,
        fetch: @escaping @Sendable (String) async throws -> [UInt8], lookahead: Int,
        progress: @Sendable (Int64) async -> Void,
        lengths: inout [Int], fetched: inout Int64, writeback: inout Writeback,
        wrote: (_ lengths: [Int], _ offset: Int64) -> Void
    ) async throws {
        var offset = Int64(lengths.reduce(0, +))
        let path = entry.path
        // Chunks not found locally are fetched up to `lookahead` ahead of the writer
        // (at most that many chunks of ≤ 4 MiB held at once).
        try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            var launched = first, inFlight = 0
            var arrived: [Int: [UInt8]] = [:]
            func launch(upTo limit: Int) {
                // Chunks that arrived ahead of the writer count too: at most `limit` held.
                while launched < entry.chunks.count && inFlight + arrived.count < limit {
                    let index = launched, hash = entry.chunks[index]
                    launched += 1
                    guard localChunks?.refs[hash] == nil else { continue }
                    inFlight += 1
                    // Checked as it arrives, beside the writer: on another core when there is one.
                    group.addTask { (index, try Self.checked(await fetch(hash), hash: hash, path: path)) }
                }
            }
            for (index, hash) in entry.chunks.enumerated() where index >= first {
                launch(upTo: max(1, lookahead))
                // A local chunk whose file is as it was when it was chunked is copied inside
                // the kernel; otherwise it is read and checked against its hash (`LocalChunks`).
                if let localChunks, let found = localChunks.refs[hash], try localChunks.copy(hash, to: fd, path: path) {
                    lengths.append(found.ref.length)
                    writeback.wrote(found.ref.length)
                    offset += Int64(found.ref.length)
                    wrote(lengths, offset)
                    await progress(Int64(found.ref.length))
                    continue
                }
                // Read and checked against its hash (`LocalChunks`).
                var bytes = localChunks?.bytes(of: hash)
                if bytes == nil, localChunks?.refs[hash] != nil {
                    // Listed locally but not readable as such now: fetched after all.
                    let data = try Self.checked(await fetch(hash), hash: hash, path: path)
                    bytes = data
                    fetched += Int64(data.count)
                }
                while bytes == nil {
                    if let ready = arrived.removeValue(forKey: index) {
                        bytes = ready
                        fetched += Int64(ready.count)
                        break
                    }
                    guard let (done, data) = try await group.next() else {
                        throw DaemonError(.io, "chunk \(hash.prefix(12)) was never fetched", path: path)
                    }
                    inFlight -= 1
                    arrived[done] = data
                    launch(upTo: max(1, lookahead))
                }
                guard let bytes else {
                    throw DaemonError(.io, "chunk \(hash.prefix(12)) was never fetched", path: path)
                }
                try materializer.writeOrSkip(fd, bytes, path: path)
                lengths.append(bytes.count)
                writeback.wrote(bytes.count)
                offset += Int64(bytes.count)
                wrote(lengths, offset)
                await progress(Int64(bytes.count))
            }
        }
    }

    /// `bytes` if they hash to `hash`: a chunk from the network is written only once checked.
    static func checked(_ bytes: [UInt8], hash: String, path: String) throws(DaemonError) -> [UInt8] {
        guard Hashing.sha256Hex(bytes) == hash else {
            throw DaemonError(.hashMismatch, "chunk \(hash.prefix(12)) does not match its hash", path: path)
        }
        return bytes
    }

    /// Big files only: a small one's page cache costs nothing to free.
    static let closeLaterFrom: Int64 = 16 << 20

    /// The file about to be replaced at `target`, open, when it is the big file expected there
    /// (same inode) on a local file system (that of `staging`, the file renamed over it): nil
    /// otherwise, and when it cannot be opened; it is then freed in the rename, as before. On
    /// NFS an open file renamed over would be kept as a `.nfs*` file in the folder, and an
    /// open may take a round trip.
    static func holdOpen(_ target: Located, expected: FileStat?, beside staging: Int32) -> Int32? {
        guard let expected, expected.kind == .file, expected.size >= closeLaterFrom,
            LocalChunks.timestampsShareOneClock(staging)
        else { return nil }
        let fd: Int32
        do {
            fd = try target.open(flags: O_RDONLY)
        } catch {
            return nil
        }
        guard let held = FileStat.fstat(fd), held.kind == .file, held.inode == expected.inode else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Closes `fd` on another thread: freeing what it was the last reference to takes no task's time.
    static func closeLater(_ fd: Int32) {
        DispatchQueue.global(qos: .utility).async { close(fd) }
    }

    /// Copies a local file with the same content. Returns the lengths of its chunks as the
    /// copy was read to check it; nil if it turned out different.
    private func copy(from source: String, to fd: Int32, expecting entry: WireEntry) -> [Int]? {
        let src: Int32
        do {
            src = try materializer.folder.open(source, flags: O_RDONLY)
        } catch {
            return nil  // gone, or not reachable without a symlink: the chunks are fetched instead
        }
        defer { close(src) }
        do { try materializer.copyBytes(from: src, to: fd, path: source) } catch { return nil }
        // Verify what landed in the staging file before trusting it.
        guard lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        let check = open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC)
        guard check >= 0 else { return nil }
        defer { close(check) }
        do {
            let chunked = try materializer.chunker.chunk(fd: check, path: source)
            return chunked.contentHash == entry.contentHash ? chunked.chunks.map(\.length) : nil
        } catch {
            return nil
        }
    }
}

/// Writing back a big staging file while it is assembled from chunks: every `step` bytes the
/// range just written is handed to the disk (`sync_file_range`, no wait), so the fsync at the
/// end has that much less to wait for. Only a hint: a failure is the fsync's to report.
struct Writeback {
    let fd: Int32
    static let step = 32 << 20
    private var started: Int64 = 0
    private var written: Int64 = 0
    /// Hands `length` bytes at `offset` of `fd` to the disk (a seam: tests record the ranges).
    private let start: (_ fd: Int32, _ offset: Int64, _ length: Int64) -> Void

    /// `from`: where writing starts (a resumed download's first byte not written yet).
    init(
        fd: Int32, from offset: Int64 = 0,
        start: @escaping (_ fd: Int32, _ offset: Int64, _ length: Int64) -> Void = Writeback.startWriting
    ) {
        self.fd = fd
        self.start = start
        self.started = offset
        self.written = offset
    }

    /// `sync_file_range(SYNC_FILE_RANGE_WRITE)`: starts writing the range back, does not wait.
    static func startWriting(_ fd: Int32, _ offset: Int64, _ length: Int64) {
        _ = clinux_start_writeback(fd, offset, length)
    }

    /// `count` more bytes were written after the ones before (a hole skipped counts too).
    mutating func wrote(_ count: Int) {
        written += Int64(count)
        guard written - started >= Self.step else { return }
        start(fd, started, written - started)
        started = written
    }
}

