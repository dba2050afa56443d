import Foundation
import SyncClient
import SyncCore
import Testing
import TestSupport

/// Harder propagation cases between two real daemons: a big file, a
/// directory of 1,000 files renamed, case-only renames, Unicode names.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct PropagationTests {
    static let dir = Hashing.contentHash(chunks: [])

    @Test func aTwoHundredMiBFileReachesTheOtherDevice() async throws {
        let two = try await TwoDevices.start("big", logLevel: "trace")
        defer { two.stop() }
        let bytes = pseudoRandomBytes(count: 200 << 20, seed: 200)
        let hash = contentHash(bytes)
        try writeFile(two.a.path("video.bin"), bytes)
        try await two.waitForBoth(["video.bin": hash], timeout: .seconds(240))
        // An edit in the middle travels back as a new version.
        var edited = bytes
        for i in 0..<4096 { edited[100 << 20 + i] ^= 0xFF }
        // Patched in place, as an editor's save of a few bytes: rewritten whole, the 200 MiB write
        // outlasted the settle window on a loaded machine, and beta pushed a version cut short
        // (alpha then fetched 182 MB for the last one).
        try Self.patch(two.b.path("video.bin"), at: 100 << 20, edited[(100 << 20)..<(100 << 20 + 4096)])
        try await two.waitForBoth(["video.bin": contentHash(edited)], timeout: .seconds(240))
        // Alpha took the unchanged chunks from its old version: it fetched the one or
        // two chunks around the edit (at most 4 MiB each), not 200 MiB.
        let line = try #require(
            two.a.log.split(separator: "\n").last { $0.contains("downloaded with local chunks") && $0.contains("video.bin") },
            "alpha did not reuse local chunks")
        let fetched = try #require(line.firstMatch(of: /fetched_bytes=(\d+)/).flatMap { Int($0.1) })
        #expect(fetched > 0 && fetched <= 8 << 20, "fetched \(fetched) bytes")
        // Where each chunk of its old version is came from alpha's record (written when it
        // pushed the file), not from reading it again. (That record's mtime is its ctime, so
        // the chunks were read and checked rather than copied unhashed: `LocalRecord.isSettled`.)
        #expect(line.contains("files_read_for_chunks=0"), "\(line)")
        // Its rename into place is known as the download's own echo: not journaled, not read
        // again to learn that it holds what was just written.
        try await eventually("alpha took the rename of video.bin as an echo", timeout: .seconds(30)) {
            two.a.log.split(separator: "\n").contains { $0.contains("event is a download's echo") && $0.contains("path=video.bin") }
        }
        // Once more: alpha's record of the file is now the one its download wrote, which keeps
        // where each chunk is too (and is settled: its mtime is beta's, not its ctime).
        var again = edited
        for i in 0..<4096 { again[50 << 20 + i] ^= 0xFF }
        try Self.patch(two.b.path("video.bin"), at: 50 << 20, again[(50 << 20)..<(50 << 20 + 4096)])
        try await two.waitForBoth(["video.bin": contentHash(again)], timeout: .seconds(240))
        let second = try #require(
            two.a.log.split(separator: "\n").last { $0.contains("downloaded with local chunks") && $0.contains("video.bin") })
        #expect(second != line)
        #expect(second.contains("files_read_for_chunks=0"), "\(second)")
    }

    /// Writes `bytes` over the file at `offset`, in place.
    static func patch(_ path: String, at offset: Int, _ bytes: ArraySlice<UInt8>) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }

    @Test func aDirectoryOfAThousandFilesRenamedOnOneDevice() async throws {
        let two = try await TwoDevices.start("dir-rename", logLevel: "trace")
        defer { two.stop() }
        var expected: [String: String] = ["album": Self.dir, "album/raw": Self.dir]
        try FileManager.default.createDirectory(atPath: two.a.path("album/raw"), withIntermediateDirectories: true)
        for i in 0..<1_000 {
            let path = i % 3 == 0 ? "album/raw/p\(i).jpg" : "album/p\(i).jpg"
            try writeFile(two.a.path(path), "photo \(i)")
            expected[path] = contentHash("photo \(i)")
        }
        try await two.waitForBoth(expected, timeout: .seconds(120))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        let client = two.server.client(credential: two.credentialA)
        let before = try await client.allRevisions(folder: "docs").map(\.rev).max() ?? 0
        let inodeBefore = try inode(of: two.a.path("album"))
        let logBefore = two.a.log.utf8.count
        try FileManager.default.moveItem(atPath: two.b.path("album"), toPath: two.b.path("Album 2026"))
        expected = Dictionary(uniqueKeysWithValues: expected.map { ("Album 2026" + $0.key.dropFirst(5), $0.value) })
        try await two.waitForBoth(expected, timeout: .seconds(120))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        // One move on the server: 1,002 arrivals naming their old path, then 1,002
        // departures, in consecutive revisions; no content pushed again by either device.
        let after = try await client.allRevisions(folder: "docs").filter { $0.rev > before }
        let arrivals = after.filter { !$0.deleted }, departures = after.filter(\.deleted)
        #expect(arrivals.count == 1_002 && departures.count == 1_002, "\(arrivals.count) new, \(departures.count) gone")
        #expect(after.map(\.rev).sorted() == Array(before + 1...before + 2_004))
        let asMove = arrivals.allSatisfy { $0.movedFrom.map { "Album 2026" + $0.dropFirst(5) } == $0.path }
        if !asMove {
            // For the post-mortem: how beta journaled and pushed the rename.
            two.tmp.keepForPostMortem()
            print("beta's log around the rename:\n" + two.b.log.split(separator: "\n").suffix(60).joined(separator: "\n"))
        }
        #expect(asMove, "the rename did not reach the server as one move")
        #expect(departures.allSatisfy { $0.movedTo != nil })
        // Alpha renamed the directory whole (one rename, not a new directory and a rename
        // per file): its inode is the one it had.
        #expect(try inode(of: two.a.path("Album 2026")) == inodeBefore, "alpha made a new directory")
        // Its rename's own event was known as the echo: nothing in it was journaled again.
        try await eventually("alpha knows the rename's event as its echo", timeout: .seconds(10)) {
            two.a.log.contains("event is a remote directory move's echo folder=docs path=\"Album 2026\"")
        }
        let since = String(decoding: two.a.log.utf8.dropFirst(logBefore), as: UTF8.self)
        // (The directory itself is journaled once, by the IN_MOVE_SELF its own watch reports.)
        let fates = since.split(separator: "\n").filter { $0.contains("push fate") && !$0.hasSuffix("path=\"Album 2026\"") }
        #expect(fates.isEmpty, "alpha journaled what the move renamed: \(fates.prefix(8).joined(separator: "\n"))")
        // Alpha renamed its files: nothing was copied, nothing went to the trash.
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.value != Self.dir }
        #expect(trashed.isEmpty, "\(trashed.count) files in alpha's trash")
        for d in [two.a, two.b] {
            let status = try #require(try await d.status())
            #expect(status.state != .waitingForApproval, "a rename is not a delete wave")
        }
    }

    @Test func caseOnlyRenames() async throws {
        let two = try await TwoDevices.start("case")
        defer { two.stop() }
        try FileManager.default.createDirectory(atPath: two.a.path("docs"), withIntermediateDirectories: true)
        try writeFile(two.a.path("docs/readme.md"), "read me")
        try await two.waitForBoth(["docs": Self.dir, "docs/readme.md": contentHash("read me")])
        try FileManager.default.moveItem(atPath: two.a.path("docs/readme.md"), toPath: two.a.path("docs/README.md"))
        try await two.waitForBoth(["docs": Self.dir, "docs/README.md": contentHash("read me")])
        try FileManager.default.moveItem(atPath: two.b.path("docs"), toPath: two.b.path("Docs"))
        try await two.waitForBoth(["Docs": Self.dir, "Docs/README.md": contentHash("read me")])
    }

    /// Names are synced in NFC: a name written in NFD is renamed to its NFC form
    /// (the same text) on its device, so no device ends with both; when both
    /// forms exist as different files, the NFD one is reported, not synced.
    @Test func unicodeNamesAreSyncedInNFC() async throws {
        let two = try await TwoDevices.start("unicode")
        defer { two.stop() }
        let nfc = "caf\u{E9}.txt"  // é as one code point
        let nfd = "re\u{301}sume\u{301}.txt"  // e + combining acute accent
        let others = "日本語/Ωmega – ✓.md"
        try FileManager.default.createDirectory(atPath: two.a.path("日本語"), withIntermediateDirectories: true)
        try writeFile(two.a.path(nfc), "nfc")
        try writeFile(two.b.path(nfd), "nfd")
        try writeFile(two.a.path(others), "others")
        let expected = [nfc: contentHash("nfc"), nfd: contentHash("nfd"), "日本語": Self.dir, others: contentHash("others")]
        try await two.waitForBoth(expected)
        let resumeNFC = Array(nfd.precomposedStringWithCanonicalMapping.utf8)
        for d in [two.a, two.b] {
            try await eventually("\(d.dir): one name per file, in NFC bytes") {
                let names = try FileManager.default.contentsOfDirectory(atPath: d.folderPath).map { Array($0.utf8) }
                return names.count == 3 && names.contains(resumeNFC) && names.contains(Array(nfc.utf8))
            }
        }

        // Both forms as two different files on alpha: the NFD one waits, reported.
        let twinNFC = "na\u{EF}ve.txt", twinNFD = "nai\u{308}ve.txt"
        try writeFile(two.a.path(twinNFC), "composed")
        try await two.waitForBoth(expected.merging([twinNFC: contentHash("composed")]) { a, _ in a })
        try writeFile(two.a.path(twinNFD), "decomposed")
        try await eventually("alpha reports the twin") {
            try await two.a.status()?.errors.contains { $0.message.contains("already has this name in Unicode NFC") } == true
        }
        let onB = try FileManager.default.contentsOfDirectory(atPath: two.b.folderPath).map { Array($0.utf8) }
        #expect(!onB.contains(Array(twinNFD.utf8)))
        #expect(FileManager.default.contents(atPath: two.b.path(twinNFC)) == Data("composed".utf8))
    }
}

extension PropagationTests {
    /// Another client commits a name no Linux file system can hold (a 300-byte
    /// component): the server refuses it (names are at most 255 bytes, docs/protocol.md)
    /// and the devices keep syncing the rest.
    @Test func aNameThatCannotExistHereIsRefused() async throws {
        let two = try await TwoDevices.start("long-name")
        defer { two.stop() }
        let long = "dir-" + String(repeating: "x", count: 300)
        let client = two.server.client(credential: two.credentialA)
        do {
            _ = try await client.commit(folder: "docs", changes: [
                CommitChange(
                    path: long, baseRev: 0, kind: .directory, size: 0, mtimeNs: 0, mode: 0o755, chunks: [],
                    contentHash: Self.dir, deleted: false)
            ])
            Issue.record("a 300-byte name was accepted")
        } catch {
            #expect(error.status == 400 && error.message.contains("255"), "\(error)")
        }
        try writeFile(two.a.path("after.txt"), "still syncing")
        try await eventually("beta still gets the other file") {
            FileManager.default.contents(atPath: two.b.path("after.txt")) == Data("still syncing".utf8)
        }
    }
}

extension PropagationTests {
    /// A device stopped (SIGTERM) in the middle of a big download goes on from what it had
    /// written when it starts again (decision 0036). `killed`: with SIGKILL instead, past
    /// 40 MiB: nothing is saved at such a stop, but the download recorded how far it got every
    /// 32 MiB (decision 0037); the next start keeps the staging file, and its try goes on from
    /// the chunks that hash right.
    @Test(arguments: [false, true])
    func aBigDownloadGoesOnAfterTheDeviceRestarts(killed: Bool) async throws {
        let (two, proxy) = try await TwoDevices.startBehindProxy(killed ? "kill-download" : "restart-download", throughProxy: ["beta"])
        defer { two.stop() }
        let how = killed ? "killed" : "stopped"
        let name = "big.bin", size = 96 << 20
        let bytes = pseudoRandomBytes(count: size, seed: killed ? 991 : 961)
        try await two.betaStallsMidDownload(
            name, bytes, behind: proxy, passing: killed ? 64 << 20 : 40 << 20, atLeast: killed ? 40 << 20 : 16 << 20)
        if killed { await two.b.kill9() } else { await two.b.stop() }
        proxy.openGate()
        let staging = try FileManager.default.contentsOfDirectory(atPath: two.b.folderPath).filter { $0.hasPrefix(".syncd-tmp-") }
        #expect(staging.count == 1, "the download's staging file is there after it was \(how): \(staging)")
        try await two.b.start()
        try await two.waitForBoth([name: contentHash(bytes)], timeout: .seconds(120))
        let line = try #require(
            two.b.log.split(separator: "\n").last { $0.contains("download resumed where") && $0.contains("path=\(name)") },
            "beta fetched \(name) from its start again after it was \(how): \(two.b.log.split(separator: "\n").filter { $0.contains("cut short") || $0.contains(name) || $0.contains("checkpoint") || $0.contains("stopped") || $0.contains("started") }.joined(separator: "\n"))")
        let kept = try #require(line.firstMatch(of: /kept_bytes=(\d+)/).flatMap { Int($0.1) })
        let fetched = try #require(line.firstMatch(of: /fetched_bytes=(\d+)/).flatMap { Int($0.1) })
        print("beta \(how): kept \(kept) bytes, fetched \(fetched)")
        if killed { #expect(two.b.log.contains("to_check=1"), "the start kept a checkpoint, to be checked by hash") }
        #expect(kept >= (killed ? 32 << 20 : 8 << 20), "\(line)")
        #expect(kept + fetched == size, "\(line)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: two.b.folderPath).filter { $0.hasPrefix(".syncd-tmp-") }.isEmpty)
    }

    /// A reload that restarts the folder in place (a setting changed) keeps a big download
    /// under way: it goes on from what it wrote. One that moves the folder elsewhere gives it
    /// up: no staging file is left in the folder nobody syncs now (decision 0036).
    @Test func aReloadKeepsABigDownloadInPlaceAndDropsItWhenTheFolderMoves() async throws {
        let (two, proxy) = try await TwoDevices.startBehindProxy("reload-download", throughProxy: ["beta"])
        defer { two.stop() }
        let size = 96 << 20
        func lines(_ marker: String) -> [Substring] { two.b.log.split(separator: "\n").filter { $0.contains(marker) } }
        /// Rewrites beta's config and sends SIGHUP; returns once the reload is done.
        func reload(replacing old: String, with new: String) async throws {
            let config = try String(contentsOfFile: two.b.configPath, encoding: .utf8)
            guard config.contains(old) else { throw TestFailure("beta's config has no \(old)") }
            try writeFile(two.b.configPath, config.replacingOccurrences(of: old, with: new))
            let before = lines("reloaded ").count
            guard kill(two.b.pid, SIGHUP) == 0 else { throw TestFailure("kill -HUP: errno \(errno)") }
            try await eventually("beta reloads", timeout: .seconds(60)) { lines("reloaded ").count > before }
        }

        let inPlace = pseudoRandomBytes(count: size, seed: 971)
        try await two.betaStallsMidDownload("inplace.bin", inPlace, behind: proxy, passing: 40 << 20, atLeast: 16 << 20)
        try await reload(replacing: "settle = \"50ms\"", with: "settle = \"60ms\"")
        #expect(lines("cut short are kept for the next start").count == 1, "the reload in place kept nothing")
        proxy.openGate()
        try await two.waitForBoth(["inplace.bin": contentHash(inPlace)], timeout: .seconds(120))
        let line = try #require(
            lines("download resumed where").last { $0.contains("path=inplace.bin") },
            "beta fetched inplace.bin from its start again after a reload in place: \((lines("cut short") + lines("path=inplace.bin")).joined(separator: "\n"))")
        let kept = try #require(line.firstMatch(of: /kept_bytes=(\d+)/).flatMap { Int($0.1) })
        let fetched = try #require(line.firstMatch(of: /fetched_bytes=(\d+)/).flatMap { Int($0.1) })
        #expect(kept >= 16 << 20 && kept + fetched == size, "\(line)")

        try await two.betaStallsMidDownload(
            "moved.bin", pseudoRandomBytes(count: size, seed: 981), behind: proxy, passing: 40 << 20, atLeast: 16 << 20)
        let moved = two.b.dir + "/elsewhere"
        try FileManager.default.createDirectory(atPath: moved, withIntermediateDirectories: true)
        try await reload(replacing: "path = \"\(two.b.folderPath)\"", with: "path = \"\(moved)\"")
        proxy.openGate()
        #expect(lines("cut short are kept for the next start").count == 2, "the reload that moved the folder kept nothing")
        #expect(lines("given up with the folder").count == 1)
        let staging = try FileManager.default.contentsOfDirectory(atPath: two.b.folderPath).filter { $0.hasPrefix(".syncd-tmp-") }
        #expect(staging.isEmpty, "a staging file is left in the folder no longer synced: \(staging)")
    }

    /// The server goes away in the middle of a download: the device keeps its
    /// place in the feed and fetches the rest of the file once the server is back.
    @Test func aDownloadCutOffByTheServerGoingAwayIsRetried() async throws {
        let (two, proxy) = try await TwoDevices.startBehindProxy("cut-download", throughProxy: ["beta"])
        defer { two.stop() }
        let name = "big.bin", size = 150 << 20
        let bytes = pseudoRandomBytes(count: size, seed: 151)
        // Cut once 16 MiB are written: what is written (from 8 MiB on: `PartialDownloads`)
        // is kept for the next try.
        try await two.betaStallsMidDownload(name, bytes, behind: proxy, passing: 40 << 20, atLeast: 16 << 20)
        await two.server.stop()
        // The replies held go on: they end where the server went away.
        proxy.openGate()
        try await eventually("beta notices the server is gone", timeout: .seconds(30)) {
            try await two.b.status()?.state == .offline
        }
        #expect(!FileManager.default.fileExists(atPath: two.b.path(name)), "beta has \(name) at its path with the server gone")
        try await two.server.start()
        try await two.waitForBoth([name: contentHash(bytes)], timeout: .seconds(120))
        // Beta went on from what it had written: it fetched only the rest.
        let line = try #require(
            two.b.log.split(separator: "\n").last { $0.contains("download resumed where") && $0.contains("path=\(name)") },
            "beta fetched \(name) from its start again")
        let kept = try #require(line.firstMatch(of: /kept_bytes=(\d+)/).flatMap { Int($0.1) })
        let fetched = try #require(line.firstMatch(of: /fetched_bytes=(\d+)/).flatMap { Int($0.1) })
        #expect(kept >= 16 << 20, "\(line)")
        #expect(kept + fetched == size, "\(line)")
    }
}

extension TwoDevices {
    /// Writes `bytes` as `name` on alpha, with beta's chunk replies held by `proxy` once
    /// `passing` bytes of them went through; returns once beta shows `atLeast` bytes of it
    /// written. Beta's download is then stalled partway, whatever the machine's load, until the
    /// caller opens the gate (`FaultProxy.openGate`). (Chunks are at most 4 MiB and fetched at
    /// most 4 ahead of the writer, so `passing` ≥ `atLeast` + 16 MiB is always reached.)
    func betaStallsMidDownload(_ name: String, _ bytes: [UInt8], behind proxy: FaultProxy, passing: Int, atLeast written: Int) async throws {
        proxy.gateReplies(toRequestsContaining: "GET /v1/folders/docs/chunks/", after: passing)
        try writeFile(a.path(name), bytes)
        do {
            try await eventually("beta downloads \(name) up to \(written) bytes", timeout: .seconds(240), poll: .milliseconds(20)) {
                try await self.b.status()?.transferring.contains {
                    $0.path == name && $0.direction == "download" && $0.bytesDone >= written
                } == true
            }
        } catch {
            throw TestFailure("\(error)" + (await postMortem()))
        }
    }
}
