import Foundation
import SyncControl
import Testing
import TestSupport

/// `syncctl retry` once the server is back: a push waiting out a backoff seconds long goes up
/// now, not at its retry time.
@Suite(.serialized, .timeLimit(.minutes(6)))
struct RetryTests {
    @Test func aRetryPushesWhatWaitsOutItsBackoffOnceTheServerIsBack() async throws {
        let rig = try await Rig.start("retry")
        defer { rig.stop() }
        let d = rig.daemon
        try writeFile(d.path("before.txt"), "synced first")
        try await rig.waitForServerTree(["before.txt": contentHash("synced first")])

        rig.server.stop()
        try writeFile(d.path("offline.txt"), "written while the server is away")
        // Tried again and again (0.5 s, 1, 2, 4… apart, up to half taken off), until the next try
        // is at least 20 s away: time for a loaded machine to start the server and run syncctl.
        var nextTry = Date.distantPast
        try await eventually("offline.txt's next try is at least 20 s away", timeout: .seconds(180)) {
            let shown = try await d.status()?.errors.first { $0.path == "offline.txt" }
            guard let text = shown?.retryAt else { return false }
            nextTry = try Date(text, strategy: .iso8601)
            return nextTry.timeIntervalSinceNow >= 20
        }
        try await rig.server.start()

        let retried = try d.syncctl("retry")
        // (1 path, unless its push was running at that moment.)
        #expect(retried.status == 0 && retried.out.hasPrefix("retrying now: docs ("), "\(retried)")
        let expected = ["before.txt": contentHash("synced first"), "offline.txt": contentHash("written while the server is away")]
        do {
            try await rig.waitForServerTree(expected, timeout: .seconds(max(1, nextTry.timeIntervalSinceNow - 1)))
        } catch {
            Issue.record("not pushed before its own retry time; syncd's log:\n\(d.log.split(separator: "\n").suffix(30).joined(separator: "\n"))")
            throw error
        }
        try await d.waitUntilIdle()
    }
}
