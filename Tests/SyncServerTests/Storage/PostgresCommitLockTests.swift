import Foundation
import Logging
import PostgresNIO
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// Commits that wait for a folder's lock in PostgreSQL (several instances committing to one
/// folder): what they read once they have it.
@Suite("PostgreSQL commits waiting for the folder's lock", .serialized)
struct PostgresCommitLockTests {
    /// A commit retried with its commit_id while the first attempt waits for the same lock
    /// (a lost reply, the retry sent to another instance): whichever goes second gets the
    /// first one's reply, and the change is applied once. The reply must be read after the
    /// lock is taken, in a statement of its own: read with the lock, it came from before the
    /// wait, and the retry applied the change again.
    @Test func aRetryThatWaitedForTheLockGetsTheFirstReply() async throws {
        let server = try PostgresServer.shared()
        let url = try await server.database("lockwait") + "?sslmode=disable"
        let logger = { var logger = Logger(label: "test.lock"); logger.logLevel = .warning; return logger }()
        let store = try await PostgresMetadataStore.open(try PostgresLocation(url: url), logger: logger)
        do {
            try await Self.run(store: store, logger: logger)
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }

    private static func run(store: PostgresMetadataStore, logger: Logger) async throws {
        try await store.accounts.addFolder("docs")
        // Another transaction holds the folder's lock while both attempts line up behind it.
        try await store.client.withConnection { holder in
            try await holder.execute("BEGIN", logger: logger)
            try await holder.execute("SELECT rev FROM folders WHERE id = 'docs' FOR UPDATE", logger: logger)
            let change = Make.file("a.txt", chunks: [Make.bytes("a")])
            let attempts = (0..<2).map { _ in
                Task {
                    try await store.commit(
                        folder: "docs", device: "d", changes: [change], idempotency: (id: "c-1", requestHash: "h"),
                        checkingChunksOf: nil)
                }
            }
            let waiting = try await waitUntil(deadline: .now + .seconds(30), poll: .milliseconds(20)) {
                var count: Int64 = 0
                for try await value in try await store.client.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                    logger: logger
                ).decode(Int64.self) { count = value }
                return count >= 2
            }
            try await holder.execute("COMMIT", logger: logger)
            #expect(waiting, "both attempts waited for the lock")
            let first = try #require(try await attempts[0].value)
            let second = try #require(try await attempts[1].value)
            #expect(first.results.map(\.status) == [.ok] && first.folderRev == 1)
            #expect(second.results.map(\.rev) == first.results.map(\.rev) && second.folderRev == first.folderRev)
        }
        #expect(try await store.folderRev("docs") == 1, "applied once")
        #expect(try await store.history(folder: "docs", path: "a.txt").count == 1)
    }
}
