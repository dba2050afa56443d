import Foundation
import Synchronization
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A big download cut short by its fetch keeps what it wrote for the next try of the same
/// content (`PartialDownloads`), on real files; the fetch is the seam where the cut is made.
struct PartialDownloadTests {
    struct Cut: Error {}

    /// A 24 MiB file, its entry, and each chunk's bytes by hash.
    struct Remote {
        let bytes: [UInt8]
        let entry: WireEntry
        let chunks: [String: [UInt8]]

        init(path: String = "big.bin", seed: UInt64 = 7, size: Int = 24 << 20) {
            bytes = pseudoRandomBytes(count: size, seed: seed)
            let chunked = FileChunker().chunk(bytes: bytes)
            entry = WireEntry(
                path: path, kind: .file, size: chunked.size, mtimeNs: 1_700_000_000_000_000_000, mode: 0o644,
                chunks: chunked.chunks.map(\.hash), contentHash: chunked.contentHash, deleted: false, rev: 1)
            var chunks: [String: [UInt8]] = [:]
            for ref in chunked.chunks {
                chunks[ref.hash] = Array(bytes[Int(ref.offset)..<Int(ref.offset) + ref.length])
            }
            self.chunks = chunks
        }
    }

    /// Counts fetches, and throws `Cut` at the `cutAt`-th one (from 1) and after.
    final class Fetcher: Sendable {
        let remote: Remote
        let cutAt: Int?
        let corruptAt: Int?
        private let calls = Mutex(0)
        init(_ remote: Remote, cutAt: Int? = nil, corruptAt: Int? = nil) {
            self.remote = remote
            self.cutAt = cutAt
            self.corruptAt = corruptAt
        }
        var count: Int { calls.withLock { $0 } }

        func fetch(_ hash: String) throws -> [UInt8] {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if let cutAt, call >= cutAt { throw Cut() }
            guard var bytes = remote.chunks[hash] else { throw Cut() }
            if call == corruptAt { bytes[0] ^= 0xFF }
            return bytes
        }
    }

    static func write(
        _ remote: Remote, in folder: String, partials: PartialDownloads, fetcher: Fetcher
    ) async throws -> (stat: FileStat, fetched: Int64, resumedAt: Int64) {
        let written = try await FileAssembler(materializer: Materializer(root: folder, trashRoot: folder + "-trash"), partials: partials).writeFile(
            remote.entry, expected: nil, copySource: nil, localChunks: nil, fetch: { try fetcher.fetch($0) }, lookahead: 2,
            progress: { _ in }, beforeRename: { _ in })
        return (written.stat, written.fetched, written.resumedAt)
    }

    static func stagingFiles(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(Scanner.stagingPrefix) }
    }

    static func cut(_ remote: Remote, in folder: String, partials: PartialDownloads, at call: Int) async {
        await #expect(throws: Cut.self) {
            _ = try await write(remote, in: folder, partials: partials, fetcher: Fetcher(remote, cutAt: call))
        }
    }

    @Test func aCutDownloadGoesOnWhereItStopped() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote()
        #expect(remote.entry.chunks.count >= 8, "the test needs a file of many chunks")
        let partials = PartialDownloads()
        await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count / 2 + 1)
        #expect(partials.count == 1)
        #expect(try Self.stagingFiles(in: tmp.path).count == 1, "the staging file waits for the next try")
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/big.bin"))

        let fetcher = Fetcher(remote)
        let written = try await Self.write(remote, in: tmp.path, partials: partials, fetcher: fetcher)
        #expect(written.resumedAt >= PartialDownloads.keepFrom)
        #expect(written.fetched == remote.entry.size - written.resumedAt, "only what the cut left out is fetched")
        #expect(fetcher.count < remote.entry.chunks.count)
        let landed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/big.bin")))
        #expect(landed == remote.bytes)
        #expect(try Self.stagingFiles(in: tmp.path).isEmpty)
        #expect(partials.count == 0)
    }

    @Test func aTrySeveralTimesCutKeepsWhatItHas() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote()
        let partials = PartialDownloads()
        let half = remote.entry.chunks.count / 2
        await Self.cut(remote, in: tmp.path, partials: partials, at: half + 1)
        // The server is still gone at the next try: nothing new is written, nothing is lost.
        await Self.cut(remote, in: tmp.path, partials: partials, at: 1)
        #expect(partials.count == 1)
        let written = try await Self.write(remote, in: tmp.path, partials: partials, fetcher: Fetcher(remote))
        #expect(written.resumedAt >= PartialDownloads.keepFrom)
        #expect(written.fetched == remote.entry.size - written.resumedAt)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/big.bin"))) == remote.bytes)
    }

    @Test func aStagingFileWrittenToSinceIsNotTrusted() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote()
        let partials = PartialDownloads()
        await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count / 2 + 1)
        let staging = tmp.path + "/" + (try #require(Self.stagingFiles(in: tmp.path).first))
        // Another process writes into it: same size, other bytes.
        let handle = try #require(FileHandle(forWritingAtPath: staging))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 16))
        try handle.close()

        let written = try await Self.write(remote, in: tmp.path, partials: partials, fetcher: Fetcher(remote))
        #expect(written.resumedAt == 0)
        #expect(written.fetched == remote.entry.size)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/big.bin"))) == remote.bytes)
        #expect(try Self.stagingFiles(in: tmp.path).isEmpty, "the untrusted staging file is removed")
    }

    @Test func otherContentForThePathGivesThePartialUp() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let old = Remote(seed: 7), new = Remote(seed: 8)
        let partials = PartialDownloads()
        await Self.cut(old, in: tmp.path, partials: partials, at: old.entry.chunks.count / 2 + 1)
        let written = try await Self.write(new, in: tmp.path, partials: partials, fetcher: Fetcher(new))
        #expect(written.resumedAt == 0)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/big.bin"))) == new.bytes)
        #expect(try Self.stagingFiles(in: tmp.path).isEmpty)
        #expect(partials.count == 0)
    }

    @Test func aChunkThatDoesNotMatchItsHashKeepsNothing() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote()
        let partials = PartialDownloads()
        await #expect(throws: DaemonError.self) {
            _ = try await Self.write(
                remote, in: tmp.path, partials: partials, fetcher: Fetcher(remote, corruptAt: remote.entry.chunks.count / 2))
        }
        #expect(partials.count == 0)
        #expect(try Self.stagingFiles(in: tmp.path).isEmpty)
    }

    @Test func littleWrittenIsNotKept() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote(size: 6 << 20)
        let partials = PartialDownloads()
        await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count)
        #expect(partials.count == 0)
        #expect(try Self.stagingFiles(in: tmp.path).isEmpty)
    }

    /// A feed page that deletes the path or a directory above it, or gives the path other
    /// content, gives the partial up: its staging file would keep the directory from being
    /// removed. The same content again, or a sibling's delete, keeps it.
    @Test func entriesThatMakeAPartialUselessGiveItUp() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote(path: "dir/big.bin")
        func tombstone(_ path: String, kind: EntryKind = .directory) -> WireEntry {
            WireEntry(path: path, kind: kind, size: 0, mtimeNs: 0, mode: 0o755, chunks: [], contentHash: "", deleted: true, rev: 9)
        }
        var other = remote.entry
        other.contentHash = Remote(seed: 99).entry.contentHash
        let cases: [(String, WireEntry, Bool)] = [
            ("the same content again", remote.entry, true),
            ("a sibling directory with the same prefix deleted", tombstone("di"), true),
            ("a directory beside, named like its start, deleted", tombstone("dir.old"), true),
            ("its directory deleted", tombstone("dir"), false),
            ("the file deleted", tombstone("dir/big.bin", kind: .file), false),
            ("other content at the path", other, false),
        ]
        for (what, entry, keeps) in cases {
            let partials = PartialDownloads()
            await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count / 2 + 1)
            #expect(partials.count == 1, "\(what)")
            partials.giveUp(supersededBy: [entry], in: FolderRoot(tmp.path))
            #expect(partials.count == (keeps ? 1 : 0), "\(what)")
            #expect(try Self.stagingFiles(in: tmp.path + "/dir").count == (keeps ? 1 : 0), "\(what)")
            partials.discardAll(in: FolderRoot(tmp.path))
        }
    }

    /// Kept with the entry's mtime, not its ctime: a write within the same clock tick still
    /// shows in the stat.
    @Test func aKeptStagingFileHasAnMtimeThatNoWriteLeaves() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote()
        let partials = PartialDownloads()
        await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count / 2 + 1)
        let staging = tmp.path + "/" + (try #require(Self.stagingFiles(in: tmp.path).first))
        let attributes = try FileManager.default.attributesOfItem(atPath: staging)
        let mtime = try #require(attributes[.modificationDate] as? Date)
        #expect(Int64(mtime.timeIntervalSince1970) == remote.entry.mtimeNs / 1_000_000_000)
        partials.discardAll(in: FolderRoot(tmp.path))
    }

    @Test func atMostFourAreKeptAndTheOldestGoes() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let partials = PartialDownloads()
        let remotes = (1...5).map { Remote(path: "f\($0).bin", seed: UInt64($0)) }
        for remote in remotes {
            await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count / 2 + 1)
        }
        #expect(partials.count == PartialDownloads.limit)
        #expect(try Self.stagingFiles(in: tmp.path).count == PartialDownloads.limit)
        // The first kept is the one given up: its next try starts over; the last one's goes on.
        let first = try await Self.write(remotes[0], in: tmp.path, partials: partials, fetcher: Fetcher(remotes[0]))
        #expect(first.resumedAt == 0)
        let last = try await Self.write(remotes[4], in: tmp.path, partials: partials, fetcher: Fetcher(remotes[4]))
        #expect(last.resumedAt > 0)
        partials.discardAll(in: FolderRoot(tmp.path))
    }

    @Test func onesWithNoTryForTenMinutesAreGivenUp() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote()
        let partials = PartialDownloads()
        await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count / 2 + 1)
        partials.expire(in: FolderRoot(tmp.path), now: .now + .seconds(60))
        #expect(partials.count == 1)
        // While no try can come (the server away, the folder paused), the time does not count.
        let start = ContinuousClock.now
        partials.touch(now: start + .seconds(540))
        partials.expire(in: FolderRoot(tmp.path), now: start + .seconds(540) + .seconds(540))
        #expect(partials.count == 1)
        partials.expire(in: FolderRoot(tmp.path), now: start + .seconds(540) + PartialDownloads.lifetime + .seconds(1))
        #expect(partials.count == 0)
        #expect(try Self.stagingFiles(in: tmp.path).isEmpty)
    }

    /// The staging file's directory moved away and made again at its place: the partial is
    /// not taken (the rename would not land where the records say).
    @Test func aPartialWhoseDirectoryWasReplacedIsNotTaken() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let remote = Remote(path: "dir/big.bin")
        let partials = PartialDownloads()
        await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count / 2 + 1)
        try FileManager.default.moveItem(atPath: tmp.path + "/dir", toPath: tmp.path + "/dir.moved")
        try FileManager.default.createDirectory(atPath: tmp.path + "/dir", withIntermediateDirectories: false)
        let written = try await Self.write(remote, in: tmp.path, partials: partials, fetcher: Fetcher(remote))
        #expect(written.resumedAt == 0)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: tmp.path + "/dir/big.bin"))) == remote.bytes)
        // Found and removed through the root only: the one moved with its directory is left
        // to the next start's first scan.
        #expect(try Self.stagingFiles(in: tmp.path + "/dir.moved").count == 1)
        #expect(try Self.stagingFiles(in: tmp.path + "/dir").isEmpty)
    }

    /// Saved in a real index at a stop and kept again at the next start, in a new
    /// `PartialDownloads`: the download goes on. One written to in between is kept, and not
    /// trusted when its try takes it; one whose staging file is not found is not kept (the
    /// first scan removes what is at its place).
    @Test func partialsSavedAtAStopAreKeptAgainAtTheNextStart() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let folder = tmp.path + "/folder"
        try FileManager.default.createDirectory(atPath: folder + "/dir", withIntermediateDirectories: true)
        let index = try IndexStore(path: tmp.path + "/index.db")
        let kept = Remote(path: "dir/kept.bin", seed: 1), touched = Remote(path: "touched.bin", seed: 2)
        let before = PartialDownloads()
        for remote in [kept, touched] {
            await Self.cut(remote, in: folder, partials: before, at: remote.entry.chunks.count / 2 + 1)
        }
        #expect(try before.save(into: index.partialDownloads, folder: "docs", root: FolderRoot(folder)) == 2)
        #expect(before.count == 0)
        #expect(try Self.stagingFiles(in: folder + "/dir").count == 1, "left in place for the next start")
        // Between the stop and the start, something writes to one of them.
        let touchedStaging = folder + "/" + (try #require(Self.stagingFiles(in: folder).first))
        let handle = try #require(FileHandle(forWritingAtPath: touchedStaging))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()

        let after = PartialDownloads()
        var saved = try index.partialDownloads.takeAll(folder: "docs")
        #expect(saved.count == 2)
        let first = try #require(saved.first)
        let lost = PartialDownload(
            path: "lost.bin", contentHash: first.contentHash, staging: "dir/\(Scanner.stagingPrefix)lost",
            directory: first.directory, lengths: first.lengths, stat: first.stat, sealed: true, keptAt: first.keptAt)
        saved.append(lost)
        #expect(after.restore(saved, in: FolderRoot(folder)).count == 2)
        #expect(!after.holds(staging: lost.staging))
        #expect(try index.partialDownloads.takeAll(folder: "docs").isEmpty, "the rows are read once")
        let keptStaging = "dir/" + (try #require(Self.stagingFiles(in: folder + "/dir").first))
        #expect(after.holds(staging: keptStaging), "the first scan leaves it")
        #expect(after.holds(staging: String(touchedStaging.dropFirst(folder.count + 1))))

        let resumed = try await Self.write(kept, in: folder, partials: after, fetcher: Fetcher(kept))
        #expect(resumed.resumedAt >= PartialDownloads.keepFrom)
        #expect(resumed.fetched == kept.entry.size - resumed.resumedAt)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/dir/kept.bin"))) == kept.bytes)
        // The one written to is looked at when its try takes it: not trusted, removed.
        let again = try await Self.write(touched, in: folder, partials: after, fetcher: Fetcher(touched))
        #expect(again.resumedAt == 0)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/touched.bin"))) == touched.bytes)
        #expect(try Self.stagingFiles(in: folder).isEmpty)
        #expect(try Self.stagingFiles(in: folder + "/dir").isEmpty)
    }

    @Test func partialsGivenUpAtTheEndLeaveNoStagingFile() async throws {
        let tmp = try TemporaryDirectory("partial")
        defer { tmp.remove() }
        let partials = PartialDownloads()
        for (seed, name) in [(UInt64(1), "a.bin"), (2, "b.bin")] {
            let remote = Remote(path: name, seed: seed)
            await Self.cut(remote, in: tmp.path, partials: partials, at: remote.entry.chunks.count / 2 + 1)
        }
        #expect(partials.count == 2)
        #expect(try Self.stagingFiles(in: tmp.path).count == 2)
        partials.discardAll(in: FolderRoot(tmp.path))
        #expect(partials.count == 0)
        #expect(try Self.stagingFiles(in: tmp.path).isEmpty)
    }
}
