import Foundation
import PostgresNIO
import TestSupport
import SyncCore
import Testing

@testable import SyncServerKit

/// One suite, both metadata stores (issue 10 point 1): SQLite and a real PostgreSQL answer
/// every operation the same way.
@Suite("Metadata stores", .serialized)
struct MetadataBackendTests {
    @Test(arguments: StoreKind.allCases)
    func commitsTakeGapFreeRevsAndConflictsNameTheCurrentEntry(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.accounts.addFolder("docs")
            await #expect(throws: APIError.self) { try await store.accounts.addFolder("docs") }
            #expect(try await store.folderRev("docs") == 0)
            #expect(try await store.folderRev("nope") == nil)
            #expect(try await store.commit(folder: "nope", device: "d", changes: [Make.directory("a")], idempotency: nil, checkingChunksOf: nil) == nil)

            let first = try #require(try await store.commit(
                folder: "docs", device: "dev1",
                changes: [Make.directory("a"), Make.file("a/x.txt", chunks: [Make.bytes("x")]), Make.file("b.txt", chunks: [Make.bytes("b")])],
                idempotency: nil, checkingChunksOf: nil))
            #expect(first.results.map(\.rev) == [1, 2, 3])
            #expect(first.folderRev == 3)

            let second = try #require(try await store.commit(
                folder: "docs", device: "dev2",
                changes: [Make.file("b.txt", base: 3, chunks: [Make.bytes("b2")]), Make.file("a/x.txt", base: 1, chunks: [Make.bytes("late")])],
                idempotency: nil, checkingChunksOf: nil))
            #expect(second.results.map(\.status) == [.ok, .conflict])
            #expect(second.results[1].current?.rev == 2)
            #expect(second.results[1].current?.device == "dev1")
            #expect(second.folderRev == 4)

            let feed = try #require(try await store.changes(folder: "docs", since: 0, limit: 2))
            #expect(feed.entries.map(\.path) == ["a", "a/x.txt"])
            #expect(feed.hasMore && feed.cursor == 2 && feed.head == 4)
            let rest = try #require(try await store.changes(folder: "docs", since: 2, limit: 10))
            #expect(rest.entries.map(\.path) == ["b.txt"])
            #expect(rest.entries.first?.rev == 4 && rest.entries.first?.chunks == [Make.hash(Make.bytes("b2"))])
            #expect(!rest.hasMore && rest.cursor == 4)

            let history = try await store.history(folder: "docs", path: "b.txt")
            #expect(history.map(\.rev) == [4, 3])
            #expect(history.map(\.device) == ["dev2", "dev1"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aDirectoryMoveArrivesBeforeItDepartsInTheFeed(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.accounts.addFolder("docs")
            _ = try await store.commit(
                folder: "docs", device: "d",
                changes: [Make.directory("a"), Make.directory("a/sub"), Make.file("a/sub/1.txt", chunks: [Make.bytes("1")]),
                          Make.file("ab.txt", chunks: [Make.bytes("ab")])],
                idempotency: nil, checkingChunksOf: nil)
            let moved = try #require(try await store.commit(
                folder: "docs", device: "d", changes: [.move(from: "a", to: "b/c", kind: .directory, baseRev: 1)],
                idempotency: nil, checkingChunksOf: nil))
            #expect(moved.results.first?.status == .ok)
            #expect(moved.results.first?.moved?.map(\.path) == ["a", "a/sub", "a/sub/1.txt"], "ab.txt sorts between a/ and a0: it stays")
            let feed = try #require(try await store.changes(folder: "docs", since: 4, limit: 100))
            #expect(feed.entries.map { "\($0.path)\($0.deleted ? " -" : "")" } == ["b/c", "b/c/sub", "b/c/sub/1.txt", "a/sub/1.txt -", "a/sub -", "a -"])
            #expect(feed.entries.first?.movedFrom == "a")
            #expect(feed.entries.last?.movedTo == "b/c")

            let blocked = try #require(try await store.commit(
                folder: "docs", device: "d", changes: [.move(from: "ab.txt", to: "b/c/sub/1.txt", kind: .file, baseRev: 4)],
                idempotency: nil, checkingChunksOf: nil))
            #expect(blocked.results.first?.status == .conflict)
            #expect(blocked.results.first?.current?.path == "b/c/sub/1.txt")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func nothingIsStoredBelowASymlinkAndARejectedCommitAppliesNothing(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.accounts.addFolder("docs")
            _ = try await store.commit(
                folder: "docs", device: "d", changes: [Make.symlink("l", target: "/etc")], idempotency: nil, checkingChunksOf: nil)
            await #expect(throws: APIError.self) {
                try await store.commit(
                    folder: "docs", device: "d", changes: [Make.file("ok.txt", chunks: [Make.bytes("o")]), Make.file("l/passwd", chunks: [Make.bytes("x")])],
                    idempotency: nil, checkingChunksOf: nil)
            }
            #expect(try await store.folderRev("docs") == 1)
            #expect(try await store.history(folder: "docs", path: "ok.txt").isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRetriedCommitGetsItsFirstReplyAndMissingChunksApplyNothing(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.accounts.addFolder("docs")
            let changes = [Make.file("a.txt", chunks: [Make.bytes("a")])]
            let first = try await store.commit(folder: "docs", device: "d", changes: changes, idempotency: ("c1", "h1"), checkingChunksOf: nil)
            let again = try await store.commit(folder: "docs", device: "d", changes: changes, idempotency: ("c1", "h1"), checkingChunksOf: nil)
            #expect(first?.results == again?.results && first?.folderRev == again?.folderRev)
            #expect(try await store.folderRev("docs") == 1)
            await #expect(throws: APIError.self) {
                try await store.commit(folder: "docs", device: "d", changes: changes, idempotency: ("c1", "other"), checkingChunksOf: nil)
            }
            #expect(try await store.pruneCommitReplies(before: MetadataStore.nowSeconds() + 10) == 1)

            let unknown = [Make.file("b.txt", chunks: [Make.bytes("never uploaded")])]
            do {
                _ = try await store.commit(
                    folder: "docs", device: "d", changes: unknown, idempotency: nil,
                    checkingChunksOf: CommitValidator.Checked(changes: unknown, chunks: unknown[0].chunks))
                Issue.record("a commit of chunks the index lacks was applied")
            } catch let error as APIError {
                #expect(error.code == .missingChunks && error.missing == unknown[0].chunks)
            }
            #expect(try await store.folderRev("docs") == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func devicesGrantsRevocationAndNames(_ kind: StoreKind) async throws {
        try await kind.with { store in
            let accounts = store.accounts
            try await accounts.addFolder("docs")
            try await accounts.addFolder("pics")
            await #expect(throws: APIError.self) { try await accounts.addDevice(id: "x", name: "x", secretHash: "s", folders: ["nope"]) }
            try await accounts.addDevice(id: "d1", name: "laptop", secretHash: "s1", folders: ["docs", "docs"])
            try await accounts.addDevice(id: "d2", name: "desk", secretHash: "s2", folders: [])
            do {
                try await accounts.addDevice(id: "d3", name: "laptop", secretHash: "s3", folders: [])
                Issue.record("a second device named laptop was added")
            } catch let error as APIError { #expect(error.code == .alreadyExists && error.message.contains("laptop")) }
            try await accounts.grant(device: "d2", folder: "pics")
            try await accounts.grant(device: "d2", folder: "pics")
            await #expect(throws: APIError.self) { try await accounts.grant(device: "nobody", folder: "pics") }
            #expect(try await accounts.activeGrants(device: "d2") == ["pics"])
            try await accounts.ungrant(device: "d2", folder: "pics")
            #expect(try await accounts.activeGrants(device: "d2") == [])
            await #expect(throws: APIError.self) { try await accounts.renameDevice(id: "d2", to: "laptop") }
            try await accounts.renameDevice(id: "d2", to: "tower")
            try await accounts.touch(device: "d1", at: 1_800_000_000)
            try await accounts.revokeDevice(id: "d1", at: 1_800_000_100)
            try await accounts.revokeDevice(id: "d1", at: 1_800_000_200)
            #expect(try await accounts.activeGrants(device: "d1") == nil)
            #expect(try await accounts.activeGrants(device: "nobody") == nil)
            let devices = try await accounts.devices()
            #expect(devices.map(\.name) == ["laptop", "tower"])
            #expect(devices[0].folders == ["docs"] && devices[0].revokedAt == 1_800_000_100 && devices[0].lastSeenAt == 1_800_000_000)
            #expect(try await accounts.device(id: "d1")?.folders == ["docs"])
            #expect(try await accounts.device(id: "nobody") == nil)
            #expect(try await accounts.folderIDs() == ["docs", "pics"])

            _ = try await store.commit(folder: "docs", device: "d1", changes: [Make.file("a", chunks: [Make.bytes("a")])], idempotency: nil, checkingChunksOf: nil)
            _ = try await store.commit(folder: "docs", device: "gone", changes: [Make.file("a", base: 1, chunks: [Make.bytes("b")])], idempotency: nil, checkingChunksOf: nil)
            #expect(try await store.provenance(folder: "docs", path: "a").map(\.deviceName) == [nil, "laptop"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pruningKeepsEachPathsCurrentVersion(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.accounts.addFolder("docs")
            for base in Int64(0)..<3 {
                _ = try await store.commit(
                    folder: "docs", device: "d", changes: [Make.file("a", base: base, chunks: [Make.bytes("v\(base)")])], idempotency: nil,
                    checkingChunksOf: nil)
            }
            #expect(try await store.pruneHistory(before: MetadataStore.nowSeconds() + 10) == 2)
            #expect(try await store.history(folder: "docs", path: "a").map(\.rev) == [3])
            #expect(try await store.pruneHistory(before: MetadataStore.nowSeconds() + 10) == 0)
            #expect(!(try await store.appliedMigrations()).isEmpty)
            try await store.ping()
        }
    }

    /// Issue 10 point 2: several instances commit to one folder at once; every accepted change
    /// gets its own revision, they run 1…n with no gap and no repeat, and a stale base is a
    /// conflict exactly as with one instance.
    @Test(arguments: StoreKind.allCases)
    func instancesCommittingAtOnceLeaveGapFreeRevisions(_ kind: StoreKind) async throws {
        let instances = 3, writers = 4, commitsEach = 15
        try await kind.with(instances: instances) { stores in
            try await stores[0].accounts.addFolder("docs")
            let revs = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for writer in 0..<(instances * writers) {
                    let store = stores[writer % instances]
                    group.addTask {
                        var revs: [Int64] = []
                        for n in 0..<commitsEach {
                            // Two new files per commit, and one contended path every writer edits from base 0:
                            // only the first such change in the folder's history may be accepted.
                            let response = try #require(try await store.commit(
                                folder: "docs", device: "w\(writer)",
                                changes: [Make.file("w\(writer)/\(n)-a", chunks: [Make.bytes("a")]),
                                          Make.file("w\(writer)/\(n)-b", chunks: [Make.bytes("b")]),
                                          Make.file("contended", chunks: [Make.bytes("w\(writer)")])],
                                idempotency: nil, checkingChunksOf: nil))
                            let ok = response.results.filter { $0.status == .ok }.map(\.rev)
                            #expect(ok.count == 2 || ok.count == 3)
                            #expect(ok == ok.sorted() && ok.last == response.folderRev, "one commit's revs are consecutive and end at the folder's")
                            revs += ok
                        }
                        return revs
                    }
                }
                var all: [Int64] = []
                for try await revs in group { all += revs }
                return all
            }
            let total = instances * writers * commitsEach * 2 + 1
            #expect(revs.count == total, "one contended change accepted, every other one a conflict")
            #expect(revs.sorted() == Array(1...Int64(total)), "gap-free and no revision twice")
            #expect(try await stores[1].folderRev("docs") == Int64(total))
            let feed = try #require(try await stores[2].changes(folder: "docs", since: 0, limit: total + 10))
            #expect(feed.entries.count == total && feed.entries.map(\.rev) == feed.entries.map(\.rev).sorted())
        }
    }

    /// A commit whose writes fail (here: the history already holds a row at the revision it
    /// takes, as a damaged database could) is an error and leaves everything as it was; it is
    /// never answered `ok` (PostgreSQL's one write statement once lost its error, and the
    /// COMMIT that followed quietly rolled back).
    @Test(arguments: StoreKind.allCases)
    func aCommitWhoseWritesFailIsAnErrorAndAppliesNothing(_ kind: StoreKind) async throws {
        try await kind.with { store in
            try await store.accounts.addFolder("docs")
            _ = try await store.commit(folder: "docs", device: "d", changes: [Make.file("a.txt", chunks: [Make.bytes("a")])])
            try await Self.execute(
                """
                INSERT INTO versions (folder_id, rev, path, kind, size, mtime_ns, mode, chunks, content_hash, deleted, committed_at)
                VALUES ('docs', 2, 'squatter', 'file', 0, 0, 0, '', 'x', FALSE, 0)
                """, on: store)
            await #expect(throws: (any Error).self) {
                try await store.commit(
                    folder: "docs", device: "d", changes: [Make.file("b.txt", chunks: [Make.bytes("b")])],
                    idempotency: (id: "c-1", requestHash: "h"), checkingChunksOf: nil)
            }
            #expect(try await store.folderRev("docs") == 1)
            let feed = try #require(try await store.changes(folder: "docs", since: 0, limit: 10))
            #expect(feed.entries.map(\.path) == ["a.txt"])
            #expect(feed.head == 1)
        }
    }

    /// Runs one statement on the store's database.
    static func execute(_ sql: String, on store: any MetadataBackend) async throws {
        if let sqlite = store as? MetadataStore {
            try await sqlite.pool.write { db in try db.execute(sql: sql) }
        } else if let postgres = store as? PostgresMetadataStore {
            try await postgres.client.withConnection { connection in
                try await connection.execute(PostgresQuery(unsafeSQL: sql), logger: postgres.logger)
            }
        } else {
            throw TestFailure("no SQL for \(type(of: store))")
        }
    }
}
