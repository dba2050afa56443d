import Foundation
import Testing
import TestSupport

/// `syncctl pause` takes effect before it returns (issue 15 point 6): a remote change that
/// a long-poll brings after the pause is not applied (before, the long-poll in flight was
/// applied after `pause` returned, and an edit made on the paused device became a conflict).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct PauseTests {
    @Test func aChangeArrivingAfterThePauseIsNotAppliedUntilResume() async throws {
        let two = try await TwoDevices.start("pause-now")
        defer { two.stop() }
        try writeFile(two.a.path("shared.txt"), "v0")
        try await two.waitForBoth(["shared.txt": contentHash("v0")])
        try await two.b.waitUntilIdle()
        // Beta's feed is now waiting in a long-poll. Paused, then alpha edits.
        let run = try await two.b.syncctl("pause")
        #expect(run.status == 0, "\(run.err)")
        try writeFile(two.a.path("shared.txt"), "v1 from alpha")
        let client = two.server.client(credential: two.credentialA)
        try await eventually("alpha's edit is on the server") {
            try await client.tree(folder: "docs")["shared.txt"]?.contentHash == contentHash("v1 from alpha")
        }
        // Beta's long-poll has been answered by now (it returns at the commit); watched for
        // two seconds, beta's file stays as it was.
        let until = ContinuousClock.now + .seconds(2)
        var seen = "v0"
        while ContinuousClock.now < until, seen == "v0" {
            try await Task.sleep(for: .milliseconds(50))
            seen = try String(contentsOfFile: two.b.path("shared.txt"), encoding: .utf8)
        }
        #expect(seen == "v0", "applied while paused")
        #expect(try await two.b.status()?.state == .paused)
        // Resumed: it arrives, and no conflict copy was made.
        #expect(try await two.b.syncctl("resume").status == 0)
        try await two.waitForBoth(["shared.txt": contentHash("v1 from alpha")])
        #expect(try await two.b.status()?.conflicts == 0)
    }
}
