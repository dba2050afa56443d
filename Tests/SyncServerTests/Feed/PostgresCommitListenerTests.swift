import Foundation
import Logging
import PostgresNIO
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// Long-polls on one instance wake when another instance commits (issue 10 point 4), through a
/// real PostgreSQL's LISTEN/NOTIFY, also after the listening connection was killed.
@Suite("PostgreSQL commit notifications", .serialized)
struct PostgresCommitListenerTests {
    static let logger: Logger = {
        var logger = Logger(label: "test.listener")
        logger.logLevel = .warning
        return logger
    }()

    @Test func payloadsRoundTripAndNonsenseIsRefused() {
        #expect(PostgresCommitListener.parse(PostgresCommitListener.payload(folder: "docs", rev: 42)) ?? ("", 0) == ("docs", 42))
        for nonsense in ["", "42", "x docs", "42 ", " docs"] { #expect(PostgresCommitListener.parse(nonsense) == nil, "\(nonsense)") }
    }

    @Test func aCommitOnOneInstanceWakesALongPollOnAnother() async throws {
        try await Self.withListeningInstances { a, notifier, _ in

            var wakes: [Duration] = []
            for n in 0..<20 {
                let rev = try #require(try await a.folderRev("docs"))
                let started = ContinuousClock.now
                async let woke = notifier.wait(folder: "docs", beyond: rev, timeout: .seconds(10))
                try await Self.untilParked(notifier)
                _ = try await a.commit(
                    folder: "docs", device: "d", changes: [Make.file("f\(n)", chunks: [Make.bytes("\(n)")])], idempotency: nil,
                    checkingChunksOf: nil)
                #expect(await woke, "commit \(n) on instance A woke the long-poll on instance B")
                wakes.append(ContinuousClock.now - started)
            }
            let sorted = wakes.sorted()
            print("commit on A → long-poll on B woken: median \(sorted[sorted.count / 2]), max \(sorted.last!) (20 commits; includes the commit itself)")
        }
    }

    @Test func aKilledListeningConnectionIsMadeAgainAndCatchesUp() async throws {
        // Listening again only after 2 s: the commit surely lands while nobody listens, its
        // notification is lost, and only the catch-up can wake the waiter.
        try await Self.withListeningInstances(retryDelay: .seconds(2)) { a, notifier, backends in
            // The server ends the listening backend; a commit lands before the listener is back.
            let first = try #require(await backends.pids.first)
            try await a.client.query("SELECT pg_terminate_backend(\(first))")
            _ = try await a.commit(
                folder: "docs", device: "d", changes: [Make.file("while-away", chunks: [Make.bytes("w")])], idempotency: nil,
                checkingChunksOf: nil)
            #expect(await notifier.wait(folder: "docs", beyond: 0, timeout: .seconds(20)), "the catch-up after listening again publishes rev 1")
            try await backends.wait(for: 2)
            #expect(await backends.pids[1] != first, "a new connection")
            async let woke = notifier.wait(folder: "docs", beyond: 1, timeout: .seconds(10))
            try await Self.untilParked(notifier)
            _ = try await a.commit(
                folder: "docs", device: "d", changes: [Make.file("after", chunks: [Make.bytes("a")])], idempotency: nil, checkingChunksOf: nil)
            #expect(await woke, "notifications flow again on the new connection")
        }
    }

    static func withListeningInstances(
        retryDelay: Duration = .milliseconds(100), _ body: (PostgresMetadataStore, ChangeNotifier, Backends) async throws -> Void
    ) async throws {
        try await StoreKind.postgres.with(instances: 2) { stores in
            let a = try #require(stores[0] as? PostgresMetadataStore), b = try #require(stores[1] as? PostgresMetadataStore)
            try await a.accounts.addFolder("docs")
            let notifier = ChangeNotifier()
            let backends = Backends()
            let listener = Task {
                try await PostgresCommitListener(
                    store: b, notifier: notifier, logger: Self.logger, retryDelay: retryDelay,
                    onListening: { await backends.add($0) }
                ).run()
            }
            do {
                try await backends.wait(for: 1)
                try await body(a, notifier, backends)
            } catch {
                listener.cancel()
                _ = await listener.result
                throw error
            }
            listener.cancel()
            _ = await listener.result
        }
    }

    static func untilParked(_ notifier: ChangeNotifier) async throws {
        try await eventually("the waiter parked", timeout: .seconds(5)) { await notifier.parkedCount == 1 }
    }
}

/// The backends the listener listened on, in order.
actor Backends {
    private(set) var pids: [Int32] = []
    func add(_ pid: Int32) { pids.append(pid) }
    var count: Int { pids.count }
}

extension Backends {
    nonisolated func wait(for count: Int) async throws {
        try await eventually("the listener listening (\(count) time(s))") { await self.count >= count }
    }
}
