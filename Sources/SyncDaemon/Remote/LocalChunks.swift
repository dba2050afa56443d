import CLinux
import Foundation
import Glibc
import SyncCore

/// Chunks of a download that local files already hold — the old version of a
/// big file edited elsewhere, or any other file sharing chunks with it: copied
/// or read from disk instead of fetched. A candidate file is looked at only when
/// its last known chunk list shares chunks with the download; where each chunk
/// is comes from its record (`LocalRecord.chunkLayout`) while the file is still
/// as recorded, else from chunking it again.
struct LocalChunks: Sendable {
    struct Found: Sendable {
        var path: String
        var ref: ChunkRef
        /// The file as it was when it was chunked (its chunk hashes hold while it stays so).
        var stat: FileStat
        /// Its bytes may be copied without hashing them while the file keeps `stat`: it was
        /// chunked just now, or its record is settled (`LocalRecord.isSettled`). Else they
        /// are read and checked (`bytes(of:)`).
        var trusted: Bool
    }

    private(set) var refs: [String: Found] = [:]
    /// The files chunks are taken from, for the log.
    private(set) var files: [String] = []
    /// Those of them that were read and chunked again to find their chunks (their records
    /// did not say where each chunk is, or they changed since), for the log.
    private(set) var reread: [String] = []

    var isEmpty: Bool { refs.isEmpty }

    private(set) var folder: FolderRoot?

    /// Adds the chunks of `wanted` that the file of `record` (beneath `folder`) holds, if
    /// the record (its last known chunk list) says it shares any not yet found.
    mutating func add(_ record: LocalRecord, in folder: FolderRoot, wanted: Set<String>, chunker: FileChunker) {
        guard record.kind == .file, record.chunks.contains(where: { wanted.contains($0) && refs[$0] == nil }) else { return }
        let path = record.path
        self.folder = folder
        let fd: Int32
        do {
            fd = try folder.open(path, flags: O_RDONLY)
        } catch {
            return  // gone or unreachable now: those chunks are fetched instead
        }
        defer { close(fd) }
        let before = FileStat.fstat(fd)
        // Still the file recorded (inode, size, mtime, ctime): where each chunk is comes from
        // its record, not read. Its chunks are copied unhashed only if the record is settled
        // (no write since can have left the stat as it is); `copy` checks the stat again
        // around each chunk.
        if let before, let layout = record.chunkLayout, record.matches(before) {
            add(layout, of: path, stat: before, trusted: record.isSettled && Self.timestampsShareOneClock(fd), wanted: wanted)
            return
        }
        let chunked: ChunkedFile
        do {
            chunked = try chunker.chunk(fd: fd, path: path)
        } catch {
            return  // unreadable now: those chunks are fetched instead
        }
        // The hashes describe the file only if it did not change while it was read.
        guard let before, let after = FileStat.fstat(fd), Self.same(before, after) else { return }
        reread.append(path)
        add(chunked.chunks, of: path, stat: after, trusted: true, wanted: wanted)
    }

    private mutating func add(_ chunks: [ChunkRef], of path: String, stat: FileStat, trusted: Bool, wanted: Set<String>) {
        var found = false
        for ref in chunks where wanted.contains(ref.hash) && refs[ref.hash] == nil {
            refs[ref.hash] = Found(path: path, ref: ref, stat: stat, trusted: trusted)
            found = true
        }
        if found { files.append(path) }
    }

    /// File systems whose mtime and ctime come from one clock at one granularity, so that a
    /// write sets both to the same value (`LocalRecord.isSettled` holds there): ext2/3/4, XFS,
    /// Btrfs, tmpfs, F2FS. Elsewhere (FAT rounds mtime to 2 s and ctime to 10 ms; network and
    /// FUSE file systems) a record's chunks are read and checked.
    static func timestampsShareOneClock(_ fd: Int32) -> Bool {
        [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0xF2F5_2010].contains(clinux_file_system_type(fd))
    }

    static func same(_ a: FileStat, _ b: FileStat) -> Bool {
        a.inode == b.inode && a.size == b.size && a.mtimeNs == b.mtimeNs && a.ctimeNs == b.ctimeNs
    }

    /// Copies chunk `hash` from the local file that holds it to `fd` at its file offset (which
    /// moves on), inside the kernel (`copy_file_range`: no read into user space, and no
    /// second hashing): the chunk must be `trusted` and the file still exactly as it was when
    /// it was chunked (inode, size, mtime and ctime), before and after the copy. False
    /// (nothing written) when it cannot be used that way, e.g. it changed before the copy, or
    /// the file system cannot copy: the caller reads (and checks) or fetches the chunk instead. Throws `changedMeanwhile` when
    /// the file changed during the copy (the bytes written cannot be trusted).
    func copy(_ hash: String, to fd: Int32, path: String) throws(DaemonError) -> Bool {
        guard let located = refs[hash], located.trusted, let folder else { return false }
        let source: Int32
        do {
            source = try folder.open(located.path, flags: O_RDONLY)
        } catch {
            return false
        }
        defer { close(source) }
        guard let before = FileStat.fstat(source), Self.same(before, located.stat) else { return false }
        let start = lseek(fd, 0, SEEK_CUR)
        guard start >= 0 else { throw .io("seek", path) }
        var offset = Int64(located.ref.offset)
        var left = located.ref.length
        while left > 0 {
            let n = clinux_copy_file_range(source, &offset, fd, UInt(left))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                // Nothing usable written (a file system that cannot copy, or a short source):
                // put the offset back and let the caller take the slow way. What a short
                // source let through goes too: a chunk of zeros after it is skipped by a seek,
                // not written over it.
                guard ftruncate(fd, start) == 0 else { throw .io("truncate", path) }
                guard lseek(fd, start, SEEK_SET) >= 0 else { throw .io("seek", path) }
                return false
            }
            left -= Int(n)
        }
        guard let after = FileStat.fstat(source), Self.same(after, located.stat) else {
            throw DaemonError(.changedMeanwhile, "\(located.path), which holds some of its chunks, changed while they were copied", path: path)
        }
        return true
    }

    /// The bytes of chunk `hash` from a local file, if it still holds them.
    func bytes(of hash: String) -> [UInt8]? {
        guard let located = refs[hash], let folder else { return nil }
        let fd: Int32
        do {
            fd = try folder.open(located.path, flags: O_RDONLY)
        } catch {
            return nil  // gone meanwhile: fetched instead
        }
        defer { close(fd) }
        guard let bytes = located.ref.read(fd: fd), Hashing.sha256Hex(bytes) == hash else { return nil }
        return bytes
    }
}
