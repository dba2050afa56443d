import Foundation
import Testing
import TestSupport

@testable import SyncDaemon

/// The commit outbox is sent again before any new push; a row of it that no release can
/// read blocks nothing: it is set aside by its id and the push goes on.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct OutboxReplayTests {
    @Test func anUnreadableOutboxRowIsDroppedAndThePushGoesOn() async throws {
        let rig = try await QueueWaiterTests.Rig.start("outbox-unreadable")
        defer { rig.stop() }
        try await rig.index.pool.write { db in
            try db.execute(sql: """
                INSERT INTO commit_outbox (folder_id, commit_id, changes, created_at) VALUES ('docs', 'torn', '[{"path"', 1)
                """)
        }
        let runner = Task { await rig.queue.run() }
        defer { runner.cancel() }
        try writeFile(rig.folder + "/c.txt", "after a torn outbox row")
        let outcome = try await rig.queue.push("c.txt")
        guard case .committed(let rev) = outcome else {
            Issue.record("expected a commit, got \(outcome)")
            return
        }
        #expect(try rig.index.base.record(folder: "docs", path: "c.txt")?.rev == rev)
        let outbox = try rig.index.outbox.contents(folder: "docs")
        #expect(outbox.commits.isEmpty && outbox.unreadable.isEmpty)
    }
}
