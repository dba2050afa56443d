import Foundation
import SyncControl
import Testing
import TestSupport

/// A push that failed for good goes up again on `syncctl retry`; a server that was away gets
/// what waited for it within seconds of being back, retry or not.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct RetryTests {
    /// A push the server refused for good is shown, with no retry time, and nothing brings it
    /// back by itself (the file does not change); `syncctl retry` pushes it once more.
    @Test func aRetryPushesAgainWhatTheServerRefusedForGood() async throws {
        let (rig, proxy) = try await Rig.startBehindProxy("retry-refused")
        defer { proxy.stop(); rig.stop() }
        let d = rig.daemon, server = rig.server, credential = rig.credential

        proxy.refuseNext(requestContaining: "/commit", status: 422, code: "bad_request", message: "refused by the test")
        try writeFile(d.path("refused.txt"), "the server said no once")
        try await eventually("refused.txt failed for good") {
            let shown = try await d.status()?.errors.first { $0.path == "refused.txt" }
            return shown?.code == "rejected" && shown?.retryAt == nil
        }
        #expect(proxy.faults == 1)
        let client = server.client(credential: credential)
        #expect(try await client.changes(folder: "docs", since: 0, limit: 10).entries.isEmpty)

        let retried = try await d.syncctl("retry")
        #expect(retried.status == 0 && retried.out == "retrying now: docs (1 path)\n", "\(retried)")
        try await eventually("refused.txt is on the server after the retry") {
            let entries = try await client.changes(folder: "docs", since: 0, limit: 10).entries
            return entries.contains { $0.path == "refused.txt" && $0.contentHash == contentHash("the server said no once") }
        }
        try await eventually("the error is gone") {
            let folder = try await d.status()
            return folder?.state == .idle && folder?.errors.isEmpty == true
        }
    }

    /// `syncctl retry --path`: only that path, and what is below it, is pushed again; another
    /// path refused for good stays as it was, until its own retry (the folder root's, given as
    /// an absolute path).
    @Test func aRetryOfOnePathPushesThatPathAlone() async throws {
        let (rig, proxy) = try await Rig.startBehindProxy("retry-path")
        defer { proxy.stop(); rig.stop() }
        let d = rig.daemon, server = rig.server, credential = rig.credential, tmp = rig.tmp

        proxy.refuseNext(requestContaining: "/commit", status: 422, code: "bad_request", message: "refused by the test", every: true)
        try FileManager.default.createDirectory(atPath: d.path("photos"), withIntermediateDirectories: true)
        try writeFile(d.path("photos/a.txt"), "photo a")
        try writeFile(d.path("photos/b.txt"), "photo b")
        try writeFile(d.path("other.txt"), "other")
        let refused: Set<String> = ["photos", "photos/a.txt", "photos/b.txt", "other.txt"]
        func rejected() async throws -> Set<String> {
            Set(try await d.status()?.errors.filter { $0.code == "rejected" && $0.retryAt == nil }.map(\.path) ?? [])
        }
        try await eventually("every new path failed for good", timeout: .seconds(60), poll: .milliseconds(200)) {
            try await rejected() == refused
        }
        proxy.stopRefusing()
        let client = server.client(credential: credential)
        func onServer() async throws -> Set<String> {
            Set(try await client.changes(folder: "docs", since: 0, limit: 100).entries.filter { !$0.deleted }.map(\.path))
        }
        #expect(try await onServer().isEmpty)

        let nothing = try await d.syncctl("retry", "--path", "photos/none.txt")
        #expect(nothing.status == 0 && nothing.out == "nothing waits for a retry at docs:photos/none.txt\n", "\(nothing)")
        let retried = try await d.syncctl("retry", "--path", "photos/")
        #expect(retried.status == 0 && retried.out == "retrying now: docs:photos (3 paths)\n", "\(retried)")
        try await eventually("photos and its files are on the server") { try await onServer() == ["photos", "photos/a.txt", "photos/b.txt"] }
        try await eventually("their errors are gone") { try await rejected() == ["other.txt"] }
        // other.txt was not pushed: it is still shown as refused for good, with no retry.
        #expect(try await onServer() == ["photos", "photos/a.txt", "photos/b.txt"])

        let outside = try await d.syncctl("retry", "--path", tmp.path + "/elsewhere.txt")
        #expect(outside.status != 0 && outside.err.contains("is not inside a synced folder"), "\(outside)")
        // The folder's root is the whole folder: only other.txt waits now.
        let root = try await d.syncctl("retry", "--path", d.folderPath)
        #expect(root.status == 0 && root.out == "retrying now: docs (1 path)\n", "\(root)")
        try await eventually("other.txt is on the server after the root's retry") { try await onServer().contains("other.txt") }
        try await d.waitUntilIdle()
        #expect(try await d.status()?.errors.isEmpty == true)
        let dot = try await d.syncctl("retry", "docs", "--path", ".")
        #expect(dot.status == 0 && dot.out == "nothing waits for a retry at docs\n", "\(dot)")
    }

    /// Without a retry: the change feed asks at least every 10 s while the server is away, and
    /// once it reaches the server again the push waiting out a longer backoff goes at once.
    @Test func aServerThatIsBackGetsWhatWaitedWithinSeconds() async throws {
        let rig = try await Rig.start("server-back")
        defer { rig.stop() }
        let d = rig.daemon
        try await d.waitUntilIdle()
        await rig.server.stop()
        try writeFile(d.path("offline.txt"), "written while the server is away")
        var nextTry = Date.distantPast
        // At least 25 s away: room for the server's start, the feed's next ask (at most 10 s
        // apart while the server is away) and the push, on a loaded machine.
        try await eventually("offline.txt's next try is at least 25 s away", timeout: .seconds(240), poll: .milliseconds(500)) {
            let shown = try await d.status()?.errors.first { $0.path == "offline.txt" }
            guard let text = shown?.retryAt else { return false }
            nextTry = try Date(text, strategy: .iso8601)
            return nextTry.timeIntervalSinceNow >= 25
        }
        try await rig.server.start()
        let back = ContinuousClock.now
        do {
            try await rig.waitForServerTree(
                ["offline.txt": contentHash("written while the server is away")],
                timeout: .seconds(max(1, nextTry.timeIntervalSinceNow - 1)))
        } catch {
            Issue.record("not pushed before its own retry time; syncd's log:\n\(d.log.split(separator: "\n").suffix(30).joined(separator: "\n"))")
            throw error
        }
        let waited = nextTry.timeIntervalSinceNow
        print("server back: offline.txt on the server \(ContinuousClock.now - back) after the server's start, \(Int(waited)) s before its own next try")
        try await d.waitUntilIdle()
    }
}
