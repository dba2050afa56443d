import Foundation
import Logging
import Synchronization
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// A big download under way records how far it got in a real index (`DownloadCheckpoints`);
/// after a kill (nothing saved at the stop) the next start keeps it again, and its try trusts
/// only the chunks that hash right. Real files, a real index; the "kill" is a new
/// `PartialDownloads` that never saw the first's, as after a restart.
struct DownloadCheckpointTests {
    typealias Remote = PartialDownloadTests.Remote
    typealias Fetcher = PartialDownloadTests.Fetcher

    struct Setup {
        let tmp: TemporaryDirectory
        let folder: String
        let index: IndexStore
        var checkpoints: DownloadCheckpoints {
            DownloadCheckpoints(store: index.partialDownloads, folder: "docs", logger: .init(label: "test"), step: 4 << 20)
        }

        init() throws {
            tmp = try TemporaryDirectory("checkpoint")
            folder = tmp.path + "/folder"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            index = try IndexStore(path: tmp.path + "/index.db")
        }

        func write(
            _ remote: Remote, partials: PartialDownloads, progress: @escaping @Sendable (Int64) -> Void = { _ in },
            fetch: @escaping @Sendable (String) throws -> [UInt8]
        ) async throws -> (fetched: Int64, resumedAt: Int64) {
            let assembler = FileAssembler(
                materializer: Materializer(root: folder, trashRoot: tmp.path + "/trash"), partials: partials,
                checkpoints: checkpoints)
            let written = try await assembler.writeFile(
                remote.entry, expected: nil, copySource: nil, localChunks: nil, fetch: { try fetch($0) }, lookahead: 2,
                progress: { progress($0) }, beforeRename: { _ in })
            return (written.fetched, written.resumedAt)
        }

        /// A download of `remote` "killed" at its fetch `call`: the index's rows and the staging
        /// file stay as they were then (a hard link keeps the file while the try fails with an
        /// error of this device's own, which removes its name and its row; both are put back as
        /// a kill would have left them). The next start keeps them again in a new
        /// `PartialDownloads` (returned, with the rows).
        func killAt(_ remote: Remote, call: Int) async throws -> (partials: PartialDownloads, rows: [PartialDownload]) {
            let store = index.partialDownloads, folder = self.folder
            let calls = Mutex(0)
            let atTheKill = Mutex<(rows: [PartialDownload], staging: String)?>(nil)
            await #expect(throws: DaemonError.self) {
                _ = try await write(remote, partials: PartialDownloads()) { hash in
                    let n = calls.withLock { calls in
                        calls += 1
                        return calls
                    }
                    guard n == call else { return try #require(remote.chunks[hash]) }
                    let rows = try store.all(folder: "docs")
                    let staging = try #require(try PartialDownloadTests.stagingFiles(in: folder).first)
                    guard link(folder + "/" + staging, folder + "/at-the-kill") == 0 else { throw DaemonError(.io, "link") }
                    atTheKill.withLock { $0 = (rows, staging) }
                    throw DaemonError(.io, "the kill")
                }
            }
            let (rows, staging) = try #require(atTheKill.withLock { $0 })
            #expect(try PartialDownloadTests.stagingFiles(in: folder).isEmpty, "the failed try removed its staging file")
            #expect(rename(folder + "/at-the-kill", folder + "/" + staging) == 0)
            try store.save(folder: "docs", rows)
            let after = PartialDownloads()
            let restored = try after.restore(from: store, folder: "docs", root: FolderRoot(folder))
            #expect(restored.kept.count == rows.count)
            return (after, rows)
        }

        /// `killAt` half way through `remote`'s fetches: the one checkpoint row recorded by then.
        func killedHalfway(_ remote: Remote) async throws -> (partials: PartialDownloads, row: PartialDownload) {
            let (partials, rows) = try await killAt(remote, call: remote.entry.chunks.count / 2 + 1)
            let row = try #require(rows.first, "a checkpoint was recorded before the kill")
            #expect(!row.sealed, "a checkpoint is checked by hash, not trusted by its stat")
            return (partials, row)
        }

        var staging: String {
            get throws { folder + "/" + (try #require(try PartialDownloadTests.stagingFiles(in: folder).first)) }
        }

        func landed(_ remote: Remote) throws -> Bool {
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + remote.entry.path))) == remote.bytes
        }
    }

    @Test func aDownloadUnderWayRecordsHowFarItGotAndLandsWithoutARow() async throws {
        let setup = try Setup()
        defer { setup.tmp.remove() }
        let remote = Remote()
        let lengths = FileChunker().chunk(bytes: remote.bytes).chunks.map(\.length)
        let store = setup.index.partialDownloads
        let calls = Mutex(0)
        let seen = Mutex<[[PartialDownload]]>([])
        _ = try await setup.write(remote, partials: PartialDownloads()) { hash in
            calls.withLock { $0 += 1 }
            let rows = try store.all(folder: "docs")
            seen.withLock { $0.append(rows) }
            return try #require(remote.chunks[hash])
        }
        let recorded = seen.withLock { $0 }.compactMap(\.first)
        #expect(!recorded.isEmpty, "a row is written while the download goes")
        for row in recorded {
            #expect(!row.sealed, "a checkpoint is checked by hash, not trusted by its stat")
            #expect(row.path == remote.entry.path && row.contentHash == remote.entry.contentHash)
            #expect(row.offset >= 4 << 20)
            #expect(Array(lengths.prefix(row.lengths.count)) == row.lengths, "the chunks written, in order")
            #expect(row.staging.hasPrefix(Scanner.stagingPrefix))
        }
        #expect(try setup.landed(remote))
        #expect(try store.all(folder: "docs").isEmpty, "the row goes when the file lands")
    }

    @Test func afterAKillOnlyTheChunksThatHashRightAreKept() async throws {
        let setup = try Setup()
        defer { setup.tmp.remove() }
        let remote = Remote()
        let (partials, row) = try await setup.killedHalfway(remote)
        #expect(row.lengths.count >= 3, "the test needs several chunks written")
        // The third chunk lost a byte (the page cache never reached the disk, say).
        let fd = open(try setup.staging, O_WRONLY)
        #expect(fd >= 0)
        var garbage: UInt8 = 0x5A
        #expect(pwrite(fd, &garbage, 1, off_t(row.lengths[0] + row.lengths[1] + 10)) == 1)
        close(fd)

        let fetcher = Fetcher(remote)
        let written = try await setup.write(remote, partials: partials, fetch: { try fetcher.fetch($0) })
        #expect(written.resumedAt == Int64(row.lengths[0] + row.lengths[1]), "up to the chunk that does not hash right")
        #expect(written.fetched == remote.entry.size - written.resumedAt)
        #expect(try setup.landed(remote))
        #expect(try PartialDownloadTests.stagingFiles(in: setup.folder).isEmpty)
        #expect(try setup.index.partialDownloads.all(folder: "docs").isEmpty)
    }

    @Test func afterAKillTheChunksOfTheLastCheckpointAreKept() async throws {
        let setup = try Setup()
        defer { setup.tmp.remove() }
        let remote = Remote()
        let (partials, row) = try await setup.killedHalfway(remote)
        let written = try await setup.write(remote, partials: partials, fetch: { try Fetcher(remote).fetch($0) })
        #expect(written.resumedAt == row.offset)
        #expect(written.fetched == remote.entry.size - row.offset)
        #expect(try setup.landed(remote))
        #expect(try PartialDownloadTests.stagingFiles(in: setup.folder).isEmpty)
        #expect(try setup.index.partialDownloads.all(folder: "docs").isEmpty, "the row goes when the file lands")
    }

    @Test func afterAKillAShortenedFileKeepsItsWholeChunks() async throws {
        let setup = try Setup()
        defer { setup.tmp.remove() }
        let remote = Remote()
        let (partials, row) = try await setup.killedHalfway(remote)
        // A power cut: the file's tail, in the middle of its second chunk, never reached the disk.
        #expect(truncate(try setup.staging, off_t(row.lengths[0] + row.lengths[1] / 2)) == 0)
        let written = try await setup.write(remote, partials: partials, fetch: { try Fetcher(remote).fetch($0) })
        #expect(written.resumedAt == Int64(row.lengths[0]))
        #expect(try setup.landed(remote))
    }

    @Test func afterAKillAFileWhoseFirstChunkIsWrongIsFetchedWhole() async throws {
        let setup = try Setup()
        defer { setup.tmp.remove() }
        let remote = Remote()
        let (partials, _) = try await setup.killedHalfway(remote)
        let fd = open(try setup.staging, O_WRONLY)
        var garbage: UInt8 = 0x5A
        #expect(pwrite(fd, &garbage, 1, 0) == 1)
        close(fd)
        let written = try await setup.write(remote, partials: partials, fetch: { try Fetcher(remote).fetch($0) })
        #expect(written.resumedAt == 0)
        #expect(written.fetched == remote.entry.size)
        #expect(try setup.landed(remote))
        #expect(try PartialDownloadTests.stagingFiles(in: setup.folder).isEmpty, "the one not taken is removed")
    }

    /// A stop (the task cancelled) while a checkpoint's chunks are checked keeps it as it was,
    /// and its next try checks it again and goes on.
    @Test func aStopDuringTheCheckKeepsThePartial() async throws {
        let setup = try Setup()
        defer { setup.tmp.remove() }
        let remote = Remote()
        let (partials, row) = try await setup.killedHalfway(remote)
        let fetcher = Fetcher(remote)
        await #expect(throws: CancellationError.self) {
            // The first chunk checked counts as progress; the stop comes then.
            _ = try await setup.write(remote, partials: partials, progress: { _ in withUnsafeCurrentTask { $0?.cancel() } }) {
                try fetcher.fetch($0)
            }
        }
        #expect(fetcher.count == 0, "nothing fetched: the stop came during the check")
        #expect(partials.count == 1)
        #expect(try PartialDownloadTests.stagingFiles(in: setup.folder).count == 1)
        let written = try await setup.write(remote, partials: partials, fetch: { try Fetcher(remote).fetch($0) })
        #expect(written.resumedAt == row.offset)
        #expect(try setup.landed(remote))
    }

    /// The check stops at the first chunk that does not hash right, whatever the number
    /// hashed at a time, and at a file too short for a chunk.
    @Test(arguments: [1, 3, 8])
    func theCheckKeepsThePrefixUpToTheFirstWrongChunk(width: Int) async throws {
        let tmp = try TemporaryDirectory("checked-prefix")
        defer { tmp.remove() }
        let remote = Remote()
        let lengths = FileChunker().chunk(bytes: remote.bytes).chunks.map(\.length)
        var bytes = remote.bytes
        let path = tmp.path + "/staging"
        func check() async throws -> [Int] {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            return try await PartialDownload.checkedPrefix(lengths, in: fd, of: remote.entry, width: width, progress: { _ in })
        }
        #expect(try await check() == lengths)
        bytes[lengths[0] + lengths[1] + lengths[2] + 5] ^= 0xFF
        #expect(try await check() == Array(lengths.prefix(3)))
        bytes = Array(remote.bytes.prefix(lengths[0] + lengths[1] / 2))
        #expect(try await check() == Array(lengths.prefix(1)))
    }

    /// Rows whose staging file is gone (partials given up after their checkpoint) take no
    /// place among the four kept: the live one is kept, and the rows become it alone.
    @Test func rowsWhoseStagingFileIsGoneTakeNoPlace() async throws {
        let setup = try Setup()
        defer { setup.tmp.remove() }
        let remote = Remote()
        let (_, live) = try await setup.killedHalfway(remote)
        let store = setup.index.partialDownloads
        // Read first (by path) and most written, were they there.
        for i in 0..<PartialDownloads.limit {
            try store.record(folder: "docs", PartialDownload(
                path: "a-gone\(i).bin", contentHash: live.contentHash, staging: "\(Scanner.stagingPrefix)gone\(i)",
                directory: live.directory, lengths: live.lengths + live.lengths, stat: live.stat, sealed: false, keptAt: .now))
        }
        let restored = try PartialDownloads().restore(from: store, folder: "docs", root: FolderRoot(setup.folder))
        #expect(restored.saved == PartialDownloads.limit + 1)
        #expect(restored.kept.map(\.path) == [live.path])
        #expect(try store.all(folder: "docs").map(\.path) == [live.path])
    }

    /// Saved sealed at a stop, kept again at the start: its row stays (a kill before its try
    /// loses nothing), and becomes a checkpoint as soon as its try writes on (from then on
    /// the stat a stop sealed says nothing).
    @Test func aPartialKeptAgainKeepsItsRowAndItsTryMakesItACheckpoint() async throws {
        let setup = try Setup()
        defer { setup.tmp.remove() }
        let remote = Remote()
        let store = setup.index.partialDownloads
        let before = PartialDownloads()
        await PartialDownloadTests.cut(remote, in: setup.folder, partials: before, at: remote.entry.chunks.count / 2 + 1)
        #expect(try before.save(into: store, folder: "docs", root: FolderRoot(setup.folder)) == 1)
        let after = PartialDownloads()
        let restored = try after.restore(from: store, folder: "docs", root: FolderRoot(setup.folder))
        #expect(restored.saved == 1 && restored.kept.count == 1)
        let row = try #require(try store.all(folder: "docs").first, "a kill now would find it")
        #expect(row.sealed)

        let seen = Mutex<[PartialDownload]>([])
        let fetcher = Fetcher(remote)
        let written = try await setup.write(remote, partials: after) { hash in
            if let row = try store.all(folder: "docs").first { seen.withLock { $0.append(row) } }
            return try fetcher.fetch(hash)
        }
        #expect(written.resumedAt == row.offset)
        let first = try #require(seen.withLock { $0.first }, "the row is there while its try goes")
        #expect(!first.sealed && first.lengths == row.lengths)
        #expect(try store.all(folder: "docs").isEmpty)
    }
}
