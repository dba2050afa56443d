import Foundation
import SyncControl
import Testing
import TestSupport

/// A folder the server does not grant this device (issue 15 point 8): the daemon says so
/// in status as an error with what to run, asks again rarely, and syncs once an admin
/// grants it with `sync-server folder grant` — on the running server, no restart.
@Suite(.serialized, .timeLimit(.minutes(12)))
struct NotGrantedTests {
    @Test func aFolderNotGrantedIsShownWithWhatToDoAndSyncsOnceGranted() async throws {
        let tmp = try TemporaryDirectory("not-granted")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        defer { server.stop() }
        let credential = try await server.provision(folder: "docs", device: "alpha")
        let (daemon, otherPath) = try await Self.startWithSharedFolder(tmp: tmp, server: server, credential: credential)
        let started = ContinuousClock.now
        defer { daemon.stop() }
        var shown: PathErrorStatus?
        try await eventually("the folder shows that it is not granted") {
            let folder = try await daemon.control.status().folders.first { $0.id == "shared" }
            shown = folder?.errors.first { $0.code == "not_granted" }
            return folder?.state == .error && shown != nil
        }
        #expect(shown?.message.contains("sync-server folder grant shared --device alpha") == true, "\(String(describing: shown))")
        // A change made meanwhile waits in the journal (not failed path by path).
        try writeFile(otherPath + "/early.txt", "made before the grant")
        try await eventually("early.txt is journaled") {
            let folder = try await daemon.control.status().folders.first { $0.id == "shared" }
            return (folder?.pendingUploads ?? 0) > 0
        }
        // The folder that is granted syncs meanwhile.
        try writeFile(daemon.path("a.txt"), "docs works")
        try await daemon.waitUntilIdle()

        // Granted on the running server: the next ask (5 s, then 10, 20, 40 s apart) succeeds.
        let granted = try await server.admin(["folder", "grant", "shared", "--device", "alpha"])
        #expect(granted.isEmpty)  // the confirmation goes to stderr
        try writeFile(otherPath + "/b.txt", "shared works")
        let client = server.client(credential: credential)
        // The asks double apart (5 s, 10, 20, …, with up to half taken off): the next one comes
        // at most about twice as long after the start as the grant did. (A CI machine took a
        // minute to get here, and the ask after the grant came later than 120 s.)
        let beforeGrant = ContinuousClock.now - started
        try await eventually("the shared folder syncs once granted", timeout: max(.seconds(120), beforeGrant * 2 + .seconds(30))) {
            let entries = try await client.changes(folder: "shared", since: 0, limit: 10).entries
            return Set(entries.filter { !$0.deleted }.map(\.path)) == ["b.txt", "early.txt"]
        }
        try await eventually("the error is gone", timeout: .seconds(30)) {
            let folder = try await daemon.control.status().folders.first { $0.id == "shared" }
            return folder?.state == .idle && folder?.errors.isEmpty == true
        }
    }

    /// `syncctl retry` once the admin granted the folder: the daemon asks again at once, not
    /// at the retry time it shows (seconds away by then), and what waited goes up.
    @Test func aRetryAsksAgainAtOnceOnceGranted() async throws {
        let tmp = try TemporaryDirectory("not-granted-retry")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        defer { server.stop() }
        let credential = try await server.provision(folder: "docs", device: "alpha")
        let (daemon, otherPath) = try await Self.startWithSharedFolder(tmp: tmp, server: server, credential: credential)
        defer { daemon.stop() }
        try writeFile(otherPath + "/early.txt", "made before the grant")
        // Refused a few times, until the next ask is at least 20 s away (5 s, 10, 20… apart, up
        // to half taken off): time for a loaded machine to run the grant and syncctl.
        var nextAsk = Date.distantPast
        var seen: [String] = []
        do {
            try await eventually("the next ask is at least 20 s away", timeout: .seconds(180), poll: .milliseconds(500)) {
                let folder = try await daemon.control.status().folders.first { $0.id == "shared" }
                let shown = folder?.errors.first { $0.code == "not_granted" }
                let look = "pending up \(folder?.pendingUploads ?? -1), errors \(folder?.errors.map { "\($0.code ?? "-") \($0.retryAt ?? "-")" } ?? [])"
                if seen.last != look { seen.append(look) }
                guard let text = shown?.retryAt, (folder?.pendingUploads ?? 0) > 0 else { return false }
                nextAsk = try Date(text, strategy: .iso8601)
                return nextAsk.timeIntervalSinceNow >= 20
            }
        } catch {
            throw TestFailure("\(error)\nstatus seen (now \(Date())):\n\(seen.suffix(20).joined(separator: "\n"))\n--- syncd log tail:\n\(daemon.log.suffix(2500))")
        }
        #expect(try await server.admin(["folder", "grant", "shared", "--device", "alpha"]).isEmpty)

        let retried = try await daemon.syncctl("retry", "shared")
        #expect(retried.status == 0 && retried.out.hasPrefix("retrying now: shared"), "\(retried)")
        let client = server.client(credential: credential)
        // On the server, and the folder shown as settled, before the daemon would have asked by
        // itself: the first ask after a refusal is no 25 s long-poll either.
        var settled = false
        do {
            try await eventually(
                "early.txt is on the server and the folder idle before the daemon would have asked by itself",
                timeout: .seconds(max(1, nextAsk.timeIntervalSinceNow - 1))
            ) {
                let entries = try await client.changes(folder: "shared", since: 0, limit: 10).entries
                let folder = try await daemon.control.status().folders.first { $0.id == "shared" }
                settled = folder?.state == .idle && folder?.errors.isEmpty == true
                return entries.contains { $0.path == "early.txt" && !$0.deleted } && settled
            }
        } catch {
            Issue.record("settled: \(settled); syncd's log:\n\(daemon.log.split(separator: "\n").suffix(30).joined(separator: "\n"))")
            throw error
        }
        // A folder with nothing waiting: nothing to retry.
        let none = try await daemon.syncctl("retry", "docs")
        #expect(none.status == 0 && none.out == "retrying now: docs (0 paths)\n", "\(none)")
    }

    /// The grant taken away while the daemon runs: a change pushed before the feed hears of
    /// it (its long-poll is still waiting) is refused with 403 on its own. It waits for a
    /// grant in the journal (tried again with the backoff, and held once the feed knows), not
    /// failed for good as "rejected", and goes up once the folder is granted again. (The same
    /// race at a start made `aRetryAsksAgainAtOnceOnceGranted` fail now and then: its early
    /// file's push beat the feed's first ask.)
    @Test func aPushRefusedForWantOfAGrantWaitsForIt() async throws {
        let tmp = try TemporaryDirectory("not-granted-push")
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "alpha")
        try await server.start()
        let daemon = try DaemonProcess(dir: try tmp.sub("alpha"), folderID: "docs", serverURL: server.url, credential: credential)
        defer {
            daemon.stop()
            server.stop()
            tmp.remove()
        }
        try await daemon.start()
        try writeFile(daemon.path("a.txt"), "granted")
        try await daemon.waitUntilIdle()

        _ = try await server.admin(["folder", "revoke", "docs", "--device", "alpha"])
        try writeFile(daemon.path("b.txt"), "after the revoke")
        var seen: [String] = []
        try await eventually("b.txt waits for a grant", timeout: .seconds(60)) {
            let folder = try await daemon.control.status().folders.first { $0.id == "docs" }
            let look = "pending up \(folder?.pendingUploads ?? -1), errors \(folder?.errors.map { "\($0.code ?? "-")" } ?? [])"
            if seen.last != look { seen.append(look) }
            return (folder?.pendingUploads ?? 0) > 0 && folder?.errors.contains { $0.code == "not_granted" } == true
        }
        #expect(!seen.contains { $0.contains("rejected") }, "\(seen)")

        _ = try await server.admin(["folder", "grant", "docs", "--device", "alpha"])
        #expect(try await daemon.syncctl("retry", "docs").status == 0)
        let client = server.client(credential: credential)
        try await eventually("b.txt goes up once granted", timeout: .seconds(60)) {
            try await client.changes(folder: "docs", since: 0, limit: 10).entries.contains { $0.path == "b.txt" && !$0.deleted }
        }
        try await daemon.waitUntilIdle()
    }

    /// A server with folders `docs` (granted to the credential's device) and `shared` (not),
    /// and alpha's daemon syncing both.
    static func startWithSharedFolder(
        tmp: TemporaryDirectory, server: ServerProcess, credential: String
    ) async throws -> (DaemonProcess, String) {
        try await server.admin(["folder", "add", "shared"])
        try await server.start()
        let otherPath = try tmp.sub("shared")
        let daemon = try DaemonProcess(
            dir: try tmp.sub("alpha"), folderID: "docs", serverURL: server.url, credential: credential,
            extraFolderConfig: """

                [[folder]]
                id = "shared"
                path = "\(otherPath)"
                settle = "50ms"
                """)
        try await daemon.start()
        return (daemon, otherPath)
    }
}
