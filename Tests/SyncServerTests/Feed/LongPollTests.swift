import Foundation
import Hummingbird
import HummingbirdTesting
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

@Suite("Long-poll")
struct LongPollTests {
    @Test func longPollWakesOnCommit() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.live) { client in
                let token = try await client.token(fixture.credential)
                let clock = ContinuousClock()
                let start = clock.now
                // The longest wait and a generous park deadline: the full suite's other work can stall
                // this in-process server for many seconds (a woken poll still ends at once).
                async let polled = client.feed("since=0&wait=60", token: token)
                // Commit once the poll is parked (deadline, not a fixed sleep).
                try await waitUntil(deadline: clock.now + .seconds(55), poll: .milliseconds(5)) {
                    await fixture.server.notifier.parkedCount != 0
                }
                #expect(await fixture.server.notifier.parkedCount == 1)
                // On a second connection: the first one is busy with the poll.
                let other = TestClient(host: "127.0.0.1", port: try #require(client.port))
                other.connect()
                let body = try JSONEncoder().encode(CommitRequest(changes: [Make.directory("woke")]))
                let commit = try await other.execute(
                    .init(
                        "/v1/folders/docs/commit", method: .post, headers: [.authorization: "Bearer \(token)"],
                        body: ByteBuffer(bytes: body)))
                try await other.shutdown()
                #expect(commit.status == .ok)
                let page = try await polled
                let elapsed = clock.now - start
                #expect(page.entries.map(\.path) == ["woke"])
                #expect(page.cursor == 1)
                #expect(elapsed < .seconds(60), "long-poll took \(elapsed): it should wake on the commit, not time out at 60 s")
                #expect(await fixture.server.notifier.parkedCount == 0)
            }
        }
    }

    @Test func longPollTimesOutEmpty() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.makeApplication().test(.router) { client in
                let token = try await client.token(fixture.credential)
                let clock = ContinuousClock()
                let start = clock.now
                let page = try await client.feed("since=0&wait=1", token: token)
                let elapsed = clock.now - start
                #expect(page.entries.isEmpty)
                #expect(page.cursor == 0)
                #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(30), "took \(elapsed)")
                #expect(await fixture.server.notifier.parkedCount == 0)
            }
        }
    }

    @Test func notifierDoesNotMissACommitBeforeTheWait() async {
        let notifier = ChangeNotifier()
        await notifier.publish(folder: "f", rev: 3)
        // A waiter that last saw rev 2 returns at once.
        #expect(await notifier.wait(folder: "f", beyond: 2, timeout: .seconds(30)))
    }

    /// A commit published while a waiter is between its first look and parking
    /// still wakes it (the actor runs `publish` at that suspension point).
    @Test func notifierDoesNotMissACommitDuringTheWait() async {
        var missed = 0
        for round in 0..<300 {
            let notifier = ChangeNotifier()
            async let woken = notifier.wait(folder: "f", beyond: 0, timeout: .seconds(2))
            if round % 2 == 0 { await Task.yield() }
            await notifier.publish(folder: "f", rev: 1)
            if await !woken { missed += 1 }
        }
        #expect(missed == 0)
    }

    @Test func notifierCancellationLeaksNothing() async throws {
        let notifier = ChangeNotifier()
        let waiter = Task { await notifier.wait(folder: "f", beyond: 0, timeout: .seconds(60)) }
        let deadline = ContinuousClock.now + .seconds(30)
        try await waitUntil(deadline: deadline, poll: .milliseconds(2)) { await notifier.parkedCount != 0 }
        #expect(await notifier.parkedCount == 1)
        waiter.cancel()
        #expect(await waiter.value == false)
        try await waitUntil(deadline: deadline, poll: .milliseconds(2)) { await notifier.parkedCount == 0 }
        #expect(await notifier.parkedCount == 0)
        // Other folders' commits do not wake a waiter.
        let other = Task { await notifier.wait(folder: "g", beyond: 0, timeout: .milliseconds(200)) }
        await notifier.publish(folder: "h", rev: 1)
        #expect(await other.value == false)
    }
}
