import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// Downloads take chunks from local files: the index says which files hold
/// which chunks; `LocalChunks` finds and verifies them on disk.
struct LocalChunksTests {
    static func record(_ path: String, chunks: [String]) -> LocalRecord {
        LocalRecord(
            path: path, kind: .file, inode: 1, size: 1, mtimeNs: 1, ctimeNs: 1, mode: 0o644, contentHash: "c-" + path,
            chunks: chunks, symlinkTarget: nil)
    }

    @Test func theIndexKnowsWhichFilesHoldAChunkThroughPutsMovesAndRemovals() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var update = IndexUpdate()
        update.locals = [
            Self.record("big/a.bin", chunks: ["h1", "h2", "h3"]), Self.record("b.bin", chunks: ["h3", "h4"]),
            Self.record("small.txt", chunks: ["h1"]),
        ]
        try index.records.apply(folder: "f", update)
        #expect(try index.chunks.files(folder: "f", sharingChunksWith: ["h1"], limit: 4).map(\.path) == ["big/a.bin"],
            "one-chunk files are found by content hash, not here")
        #expect(try index.chunks.files(folder: "f", sharingChunksWith: ["h3", "h9"], limit: 4).map(\.path) == ["b.bin", "big/a.bin"])
        var move = IndexUpdate()
        move.moves = [(from: "big", to: "large")]
        try index.records.apply(folder: "f", move)
        #expect(try index.chunks.files(folder: "f", sharingChunksWith: ["h2"], limit: 4).map(\.path) == ["large/a.bin"])
        var edit = IndexUpdate()
        edit.locals = [Self.record("b.bin", chunks: ["h5", "h6"])]
        edit.removedLocals = ["large"]
        try index.records.apply(folder: "f", edit)
        #expect(try index.chunks.files(folder: "f", sharingChunksWith: ["h2", "h3"], limit: 4).isEmpty)
        #expect(try index.chunks.files(folder: "f", sharingChunksWith: ["h6"], limit: 4).map(\.path) == ["b.bin"])
    }

    @Test func chunksOfAnEditedFileComeFromItsOldVersionVerified() throws {
        let tmp = try TemporaryDirectory("localchunks")
        defer { tmp.remove() }
        let dir = tmp.path
        let chunker = FileChunker()
        let old = pseudoRandomBytes(count: 6 << 20, seed: 7)
        var new = old
        for i in 0..<1000 { new[3 << 20 + i] ^= 0x5A }
        let oldChunks = chunker.chunk(bytes: old).chunks.map(\.hash)
        let wanted = chunker.chunk(bytes: new).chunks.map(\.hash)
        let shared = Set(wanted).intersection(oldChunks)
        #expect(shared.count >= 2 && shared.count < wanted.count)
        try Data(old).write(to: URL(fileURLWithPath: dir + "/v.bin"))

        var found = LocalChunks()
        found.add(Self.record("v.bin", chunks: oldChunks), in: FolderRoot(dir), wanted: Set(wanted), chunker: chunker)
        #expect(found.reread == ["v.bin"], "its record does not say where its chunks are: read")
        #expect(Set(found.refs.keys) == shared)
        for hash in shared { #expect(found.bytes(of: hash).map(Hashing.sha256Hex) == hash) }
        // The file changed since: a chunk that no longer matches is not used.
        var changed = old
        for i in 0..<(6 << 20) { changed[i] ^= 0xFF }
        try Data(changed).write(to: URL(fileURLWithPath: dir + "/v.bin"))
        #expect(shared.allSatisfy { found.bytes(of: $0) == nil })
        // A record that shares nothing is not even read.
        var none = LocalChunks()
        none.add(Self.record("missing.bin", chunks: ["other"]), in: FolderRoot(dir), wanted: Set(wanted), chunker: chunker)
        #expect(none.isEmpty)
    }

    /// Unchanged chunks go from the old file to the staging file inside the kernel, at the
    /// staging file's offset; once the old file changed (its stat), nothing is copied.
    @Test func unchangedChunksAreCopiedInTheKernelUnlessTheFileChanged() throws {
        let tmp = try TemporaryDirectory("localchunks-copy")
        defer { tmp.remove() }
        let dir = tmp.path
        let chunker = FileChunker()
        let old = pseudoRandomBytes(count: 6 << 20, seed: 11)
        let refs = chunker.chunk(bytes: old).chunks
        try Data(old).write(to: URL(fileURLWithPath: dir + "/v.bin"))
        var found = LocalChunks()
        found.add(Self.record("v.bin", chunks: refs.map(\.hash)), in: FolderRoot(dir), wanted: Set(refs.map(\.hash)), chunker: chunker)
        #expect(found.refs.count == Set(refs.map(\.hash)).count)

        // Copied in the order of a new file that starts with a few bytes of its own.
        let out = open(dir + "/staged", O_RDWR | O_CREAT | O_TRUNC, 0o600)
        defer { close(out) }
        #expect(write(out, "head", 4) == 4)
        for ref in refs.reversed() { #expect(try found.copy(ref.hash, to: out, path: "new.bin")) }
        let staged = try Data(contentsOf: URL(fileURLWithPath: dir + "/staged"))
        #expect(staged.count == 4 + old.count)
        #expect(Array(staged.prefix(4)) == Array("head".utf8))
        var expected: [UInt8] = []
        for ref in refs.reversed() { expected += old[Int(ref.offset)..<Int(ref.offset) + ref.length] }
        #expect(Array(staged.dropFirst(4)) == expected)

        // The old file is touched (same bytes, a new mtime): its chunks are not trusted any more.
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, dir + "/v.bin", &times, 0) == 0)
        let before = lseek(out, 0, SEEK_CUR)
        #expect(try found.copy(refs[0].hash, to: out, path: "new.bin") == false)
        #expect(lseek(out, 0, SEEK_CUR) == before, "nothing written")
    }

    /// A file's chunk lengths go into the index with its record and come back with it; rows
    /// without them (one chunk, written before they were kept, unreadable) have none.
    @Test func chunkLengthsAreKeptWithTheRecord() throws {
        let (index, tmp) = try JournalTests.store()
        defer { tmp.remove() }
        var record = Self.record("a.bin", chunks: ["h1", "h2"])
        record.size = 30
        record.chunkLengths = [10, 20]
        var update = IndexUpdate()
        update.locals = [record, Self.record("b.bin", chunks: ["h3", "h4"])]
        try index.records.apply(folder: "f", update)
        var read = try index.records.read(folder: "f", paths: ["a.bin", "b.bin"]).local
        #expect(read["a.bin"]?.chunkLengths == [10, 20])
        #expect(read["a.bin"]?.chunkLayout == [ChunkRef(hash: "h1", offset: 0, length: 10), ChunkRef(hash: "h2", offset: 10, length: 20)])
        #expect(read["b.bin"]?.chunkLengths == nil)
        try index.pool.write { db in
            try db.execute(sql: "UPDATE local_files SET chunk_lengths = '10,x' WHERE path = 'a.bin'")
        }
        read = try index.records.read(folder: "f", paths: ["a.bin"]).local
        #expect(read["a.bin"] != nil && read["a.bin"]?.chunkLengths == nil, "unreadable lengths are not known ones")
    }

    /// While a file is as recorded (inode, size, mtime, ctime), where its chunks are comes from
    /// its record and it is not read: the record here names chunks its bytes do not hash to,
    /// which reading it would not find. Lengths that do not add up, or a file touched since,
    /// and it is read again.
    @Test func aFileStillAsRecordedIsNotReadToFindItsChunks() throws {
        let tmp = try TemporaryDirectory("localchunks-layout")
        defer { tmp.remove() }
        let size = 3 << 20
        try Data(pseudoRandomBytes(count: size, seed: 5)).write(to: URL(fileURLWithPath: tmp.path + "/v.bin"))
        let root = FolderRoot(tmp.path)
        guard case .found(let stat) = root.lstat("v.bin") else {
            Issue.record("v.bin is not there")
            return
        }
        let lengths = [1 << 20, 1 << 19, size - (1 << 20) - (1 << 19)]
        var record = LocalRecord(
            path: "v.bin", kind: .file, inode: stat.inode, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs,
            mode: stat.mode, contentHash: "c", chunks: ["x", "y", "z"], symlinkTarget: nil, chunkLengths: lengths)
        var found = LocalChunks()
        found.add(record, in: root, wanted: ["y", "z"], chunker: FileChunker())
        #expect(found.reread.isEmpty && found.files == ["v.bin"])
        #expect(found.refs["y"]?.ref == ChunkRef(hash: "y", offset: 1 << 20, length: 1 << 19))
        #expect(found.refs["z"]?.ref == ChunkRef(hash: "z", offset: (1 << 20) + (1 << 19), length: lengths[2]))
        #expect(found.refs["x"] == nil, "not wanted")

        record.chunkLengths = [1, 2, 3]
        var wrong = LocalChunks()
        wrong.add(record, in: root, wanted: ["y"], chunker: FileChunker())
        #expect(wrong.reread == ["v.bin"] && wrong.isEmpty)

        record.chunkLengths = lengths
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, tmp.path + "/v.bin", &times, 0) == 0)
        var touched = LocalChunks()
        touched.add(record, in: root, wanted: ["y"], chunker: FileChunker())
        #expect(touched.reread == ["v.bin"] && touched.isEmpty)
    }

    /// A layout from a settled record (mtime not its ctime: no later write can leave the stat
    /// as it is) is copied unhashed; one from a record whose mtime is its ctime is checked:
    /// its chunks are read and hashed, and one that does not hash as recorded is not used.
    @Test func onlyASettledRecordsChunksAreCopiedUnhashed() throws {
        let tmp = try TemporaryDirectory("localchunks-settled")
        defer { tmp.remove() }
        let bytes = pseudoRandomBytes(count: 3 << 20, seed: 8)
        let path = tmp.path + "/v.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let refs = FileChunker().chunk(bytes: bytes).chunks
        try #require(refs.count > 1)
        let root = FolderRoot(tmp.path)
        func record() throws -> LocalRecord {
            guard case .found(let stat) = root.lstat("v.bin") else { throw DaemonError(.io, "no file", path: "v.bin") }
            return LocalRecord(
                path: "v.bin", kind: .file, inode: stat.inode, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs,
                mode: stat.mode, contentHash: "c", chunks: refs.map(\.hash), symlinkTarget: nil, chunkLengths: refs.map(\.length))
        }
        let out = open(tmp.path + "/staged", O_RDWR | O_CREAT | O_TRUNC, 0o600)
        defer { close(out) }

        // Written just now: mtime is ctime.
        let fresh = try record()
        try #require(!fresh.isSettled)
        var checked = LocalChunks()
        checked.add(fresh, in: root, wanted: [refs[1].hash], chunker: FileChunker())
        #expect(checked.reread.isEmpty && checked.refs[refs[1].hash]?.trusted == false)
        #expect(try checked.copy(refs[1].hash, to: out, path: "new.bin") == false, "not copied unhashed")
        #expect(checked.bytes(of: refs[1].hash).map(Hashing.sha256Hex) == refs[1].hash)

        // Its mtime set back, as a download sets the remote one's: settled.
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let settled = try record()
        try #require(settled.isSettled)
        var trusted = LocalChunks()
        trusted.add(settled, in: root, wanted: [refs[1].hash], chunker: FileChunker())
        // Settled counts only where mtime and ctime share one clock (the temp dir may be on
        // another file system, e.g. overlayfs: then its chunks are checked as above).
        guard LocalChunks.timestampsShareOneClock(out) else {
            #expect(trusted.refs[refs[1].hash]?.trusted == false)
            return
        }
        #expect(trusted.refs[refs[1].hash]?.trusted == true)
        #expect(try trusted.copy(refs[1].hash, to: out, path: "new.bin"))
        #expect(lseek(out, 0, SEEK_CUR) == off_t(refs[1].length))
    }

    /// A record rebuilt for the same bytes (an adoption) keeps the chunk lengths of the one it
    /// replaces when the chunks are the same.
    @Test func aRecordRebuiltForTheSameChunksKeepsTheirLengths() {
        let entry = WireEntry(
            path: "b.bin", kind: .file, size: 30, mtimeNs: 1, mode: 0o644, chunks: ["h1", "h2"], contentHash: "c",
            deleted: false, rev: 2)
        let stat = FileStat(kind: .file, inode: 9, size: 30, mtimeNs: 1, ctimeNs: 2, mode: 0o644)
        var previous = Self.record("a.bin", chunks: ["h1", "h2"])
        previous.chunkLengths = [10, 20]
        #expect(entry.localRecord(stat: stat, keepingLengthsOf: previous).chunkLengths == [10, 20])
        previous.chunks = ["h1", "h3"]
        #expect(entry.localRecord(stat: stat, keepingLengthsOf: previous).chunkLengths == nil, "other chunks")
        #expect(entry.localRecord(stat: stat, keepingLengthsOf: nil).chunkLengths == nil)
    }

    /// Only a big file about to be replaced is held open (to be let go of off the task).
    @Test func onlyABigFileAboutToBeReplacedIsHeldOpen() throws {
        let tmp = try TemporaryDirectory("hold-open")
        defer { tmp.remove() }
        try Data(count: 1000).write(to: URL(fileURLWithPath: tmp.path + "/f"))
        let located = try #require(FolderRoot(tmp.path).lookup("f").0)
        guard case .found(let real) = located.lstat() else {
            Issue.record("f is not there")
            return
        }
        let beside = open(tmp.path, O_RDONLY | O_DIRECTORY)
        defer { close(beside) }
        var big = real
        big.size = FileAssembler.closeLaterFrom
        #expect(FileAssembler.holdOpen(located, expected: nil, beside: beside) == nil)
        #expect(FileAssembler.holdOpen(located, expected: real, beside: beside) == nil, "small")
        var other = big
        other.inode += 1
        #expect(FileAssembler.holdOpen(located, expected: other, beside: beside) == nil, "not the file expected there")
        // Only on a local file system of the list (the temp dir may be another, e.g. overlayfs).
        let held = FileAssembler.holdOpen(located, expected: big, beside: beside)
        #expect((held != nil) == LocalChunks.timestampsShareOneClock(beside))
        if let held { close(held) }
    }
}
