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
        found.add(file: "v.bin", in: FolderRoot(dir), known: oldChunks, wanted: Set(wanted), chunker: chunker)
        #expect(Set(found.refs.keys) == shared)
        for hash in shared { #expect(found.bytes(of: hash).map(Hashing.sha256Hex) == hash) }
        // The file changed since: a chunk that no longer matches is not used.
        var changed = old
        for i in 0..<(6 << 20) { changed[i] ^= 0xFF }
        try Data(changed).write(to: URL(fileURLWithPath: dir + "/v.bin"))
        #expect(shared.allSatisfy { found.bytes(of: $0) == nil })
        // A record that shares nothing is not even read.
        var none = LocalChunks()
        none.add(file: "missing.bin", in: FolderRoot(dir), known: ["other"], wanted: Set(wanted), chunker: chunker)
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
        found.add(file: "v.bin", in: FolderRoot(dir), known: refs.map(\.hash), wanted: Set(refs.map(\.hash)), chunker: chunker)
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
}
