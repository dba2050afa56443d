import Foundation
import Glibc
import SyncCore

/// Reads a path's current state and decides what, if anything, to commit.
/// Runs off the actors (plain synchronous file I/O), one call per path.
struct Preparer: Sendable {
    let folder: FolderRoot
    let chunker = FileChunker()
    /// Files up to this size are kept in memory between hashing and upload.
    let inMemoryLimit: Int64 = 4 << 20

    /// `keepBytes`: a small file's bytes stay in memory from the hashing read to the upload
    /// (false: they are read again when sent, as a big file's are).
    func prepare(
        path: String, local: LocalRecord?, base: BaseRecord?, keepBytes: Bool = true, liveBelow: () throws -> [BaseRecord]
    ) rethrows -> Preparation {
        // Beneath the root, no symlink followed: a path below a symlink is not in the folder.
        let (located, lookup) = folder.lookup(path)
        switch lookup {
        case .missing:
            let tombstones = try Self.tombstones(liveBelow())
            guard !tombstones.isEmpty else { return .unchanged(local: nil, removeLocalUnder: path) }
            return .change(tombstones)
        case .unsupported:
            return .failed(DaemonError(.unsupportedKind, "not a regular file, directory or symlink: not synced", path: path))
        case .failed(ESTALE):
            // The root is not the directory it was (unmounted, replaced): nothing here is
            // read as deleted or changed; the root check holds sending until it is back.
            return .unstable
        case .failed(let code):
            return .failed(.io("stat", path, code))
        case .found(let stat):
            guard let located else { return .unstable }
            let prepared: Preparation
            switch stat.kind {
            case .directory: return prepareDirectory(path: path, stat: stat, base: base)
            case .symlink: prepared = prepareSymlink(located, stat: stat, base: base)
            case .file: prepared = prepareFile(located, stat: stat, local: local, base: base, keepBytes: keepBytes)
            }
            // A directory replaced by a file or symlink: what the server has below it
            // goes in the same commit, before it (nothing may live below a symlink). The
            // directory itself is not among them: the new entry replaces it (a tombstone
            // first would make the new entry's base rev stale, and the server refuse it).
            guard case .change(let changes) = prepared, base?.kind == .directory, base?.deleted == false else {
                return prepared
            }
            return .change(try Self.tombstones(liveBelow().filter { $0.path != path }) + changes)
        }
    }

    /// Tombstones for `live` (what the server holds below a path), children before their directory.
    static func tombstones(_ live: [BaseRecord]) -> [PreparedChange] {
        live.sorted { $0.path > $1.path }.map { b in
            PreparedChange(
                change: CommitChange(
                    path: b.path, baseRev: b.rev, kind: b.kind, size: 0, mtimeNs: 0, mode: 0, chunks: [],
                    contentHash: b.contentHash, deleted: true),
                local: nil, source: .none)
        }
    }

    /// The permission bits sent: setuid and setgid never leave the device.
    static func sentMode(_ mode: UInt32) -> UInt32 { mode & EntryLimits.modeMask }

    /// The mtime sent, within the range the server takes.
    static func sentMtime(_ mtimeNs: Int64) -> Int64 {
        min(max(mtimeNs, EntryLimits.mtimeNs.lowerBound), EntryLimits.mtimeNs.upperBound)
    }

    /// The server holds this kind and content (and, for files and directories, these
    /// permission bits when the base knows them): nothing to commit.
    private func isLive(_ base: BaseRecord?, kind: EntryKind, hash: String, mode: UInt32? = nil) -> Bool {
        guard let base, !base.deleted, base.kind == kind, base.contentHash == hash else { return false }
        guard let known = Modes.known(base.mode), let mode = Modes.known(mode) else { return true }
        return known == mode
    }

    private func prepareDirectory(path: String, stat: FileStat, base: BaseRecord?) -> Preparation {
        let hash = Hashing.contentHash(chunks: [])
        let local = LocalRecord(
            path: path, kind: .directory, inode: stat.inode, size: 0, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs,
            mode: stat.mode, contentHash: hash, chunks: [], symlinkTarget: nil)
        if isLive(base, kind: .directory, hash: hash, mode: stat.mode) { return .unchanged(local: local, removeLocalUnder: nil) }
        return .change([PreparedChange(
            change: CommitChange(
                path: path, baseRev: base?.rev ?? 0, kind: .directory, size: 0, mtimeNs: Self.sentMtime(stat.mtimeNs), mode: Self.sentMode(stat.mode),
                chunks: [], contentHash: hash, deleted: false),
            local: local, source: .none)])
    }

    private func prepareSymlink(_ located: Located, stat: FileStat, base: BaseRecord?) -> Preparation {
        let path = located.relative
        let target: String
        do {
            target = try located.readLink()
        } catch {
            // Gone or replaced by another kind since the stat: look again shortly.
            if error.isIO(ENOENT) || error.isIO(EINVAL) { return .unstable }
            return .failed(DaemonError(error.code, "cannot read link: \(error.message)", path: path, underlying: error.underlying))
        }
        let hash = Hashing.sha256Hex(Array(target.utf8))
        let local = LocalRecord(
            path: path, kind: .symlink, inode: stat.inode, size: 0, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs,
            mode: stat.mode, contentHash: hash, chunks: [], symlinkTarget: target)
        if isLive(base, kind: .symlink, hash: hash) { return .unchanged(local: local, removeLocalUnder: nil) }
        return .change([PreparedChange(
            change: CommitChange(
                path: path, baseRev: base?.rev ?? 0, kind: .symlink, size: 0, mtimeNs: Self.sentMtime(stat.mtimeNs), mode: Self.sentMode(stat.mode),
                chunks: [], contentHash: hash, deleted: false, symlinkTarget: target),
            local: local, source: .none)])
    }

    private func prepareFile(_ located: Located, stat: FileStat, local: LocalRecord?, base: BaseRecord?, keepBytes: Bool)
        -> Preparation
    {
        let path = located.relative
        // stat unchanged since we last hashed it, and the server has that content: nothing to read.
        if let local, local.matches(stat), isLive(base, kind: .file, hash: local.contentHash, mode: stat.mode) {
            return .unchanged(local: local, removeLocalUnder: nil)
        }
        let fd: Int32
        do {
            fd = try located.open(flags: O_RDONLY)
        } catch {
            // Gone or replaced (by a symlink, too) since the stat: look again shortly.
            if error.isIO(ENOENT) || error.code == .symlinkInPath || error.code == .notADirectory { return .unstable }
            return .failed(DaemonError(error.code, "cannot open: \(error.message)", path: path, underlying: error.underlying))
        }
        defer { close(fd) }
        // (nil also for a kind not synced, a FIFO swapped in since the stat: look again.)
        guard let before = FileStat.fstat(fd) else { return .unstable }
        guard before.kind == .file else { return .unstable }  // replaced since the stat: look again
        var bytes: [UInt8]? = nil
        let chunked: ChunkedFile
        do {
            if before.size <= inMemoryLimit {
                let all = try Self.readAll(fd: fd, path: path, expected: Int(before.size))
                bytes = all
                chunked = chunker.chunk(bytes: all)
            } else if let previous = local?.chunkLayout {
                // Its last chunk list guides the chunking: only what changed is cut again.
                chunked = try chunker.chunk(fd: fd, path: path, previous: previous)
            } else {
                chunked = try chunker.chunk(fd: fd, path: path)
            }
        } catch {
            return .failed(DaemonError(.io, "cannot read: \(error)", path: path, underlying: error))
        }
        // A writer got in while we read: what we hashed may be torn.
        guard let (after, links) = FileStat.fstatCountingLinks(fd), after == before, chunked.size == before.size else {
            return .unstable
        }
        let record = LocalRecord(
            path: path, kind: .file, inode: after.inode, size: after.size, mtimeNs: after.mtimeNs,
            ctimeNs: after.ctimeNs, mode: after.mode, contentHash: chunked.contentHash,
            chunks: chunked.chunks.map(\.hash), symlinkTarget: nil, chunkLengths: LocalRecord.lengths(chunked.chunks.map(\.length)))
        if isLive(base, kind: .file, hash: chunked.contentHash, mode: after.mode) {
            return .unchanged(local: record, removeLocalUnder: nil, hardLinked: links > 1 && local != nil)
        }
        let source: ChunkSource =
            if keepBytes, let bytes { .memory(bytes, chunked.chunks) } else { .file(path: path, in: folder, chunked.chunks) }
        return .change([PreparedChange(
            change: CommitChange(
                path: path, baseRev: base?.rev ?? 0, kind: .file, size: chunked.size, mtimeNs: Self.sentMtime(after.mtimeNs),
                mode: Self.sentMode(after.mode), chunks: record.chunks, contentHash: chunked.contentHash, deleted: false),
            local: record, source: source, hardLinked: links > 1)])
    }

    static func readAll(fd: Int32, path: String, expected: Int) throws(ChunkingError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: expected + 1)
        var filled = 0
        while true {
            if filled == out.count { out.append(contentsOf: repeatElement(0, count: max(4096, out.count))) }
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ChunkingError(path: path, errno: errno, operation: "read")
            }
            if n == 0 { break }
            filled += n
        }
        out.removeSubrange(filled...)
        return out
    }
}
