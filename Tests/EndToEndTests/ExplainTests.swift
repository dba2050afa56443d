import Foundation
import SyncControl
import Testing
import TestSupport

/// `syncctl explain PATH` on a real daemon (issue 15 point 3): what a person sees, and the
/// `--json` a script reads.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct ExplainTests {
    @Test func explainSaysSyncedIgnoredPendingAndOutside() async throws {
        let rig = try await Rig.start("explain")
        defer { rig.stop() }
        try writeFile(rig.daemon.path(".syncignore"), "# editor and build output\n*.log\n")
        try writeFile(rig.daemon.path("notes.txt"), "hello\n")
        try writeFile(rig.daemon.path("debug.log"), "noise\n")
        #expect(try await rig.daemon.syncctl("wait", "--timeout", "60s").status == 0)

        let synced = try await rig.daemon.syncctl("explain", rig.daemon.path("notes.txt"))
        #expect(synced.status == 0, "\(synced.out)\(synced.err)")
        #expect(synced.out.contains("docs:notes.txt: in sync") && synced.out.contains("In sync at revision"), "\(synced.out)")

        let ignored = try await rig.daemon.syncctl("explain", "debug.log", "--json")
        #expect(ignored.status == 0, "\(ignored.err)")
        let reply = try JSONDecoder().decode(ExplainReply.self, from: Data(ignored.out.utf8))
        #expect(reply.verdict == .ignored && reply.details.ignoreRule == "*.log" && reply.details.ignoreSource == ".syncignore:2", "\(ignored.out)")
        #expect(reply.sentence.contains("`*.log` from .syncignore line 2"))

        let outside = try await rig.daemon.syncctl("explain", "/etc/passwd")
        #expect(outside.status == 0 && outside.out.contains("outside") && outside.out.contains(rig.daemon.folderPath), "\(outside.out)")

        // Paused, a new file waits: pending, and the sentence says why it does not move.
        #expect(try await rig.daemon.syncctl("pause").status == 0)
        try writeFile(rig.daemon.path("later.txt"), "after the pause\n")
        var pending = try await rig.daemon.syncctl("explain", "later.txt")
        try await eventually("the new file is journaled") {
            pending = try await rig.daemon.syncctl("explain", "later.txt")
            return pending.out.contains("pending upload")
        }
        #expect(pending.status == 3 && pending.out.contains("syncctl resume docs"), "\(pending.out)")
        let escape = try await rig.daemon.syncctl("explain", "../outside.txt")
        #expect(escape.status == 1 && escape.err.contains("..") && !escape.err.contains("{"), "\(escape.err)")
    }
}
