import Foundation
import SyncControl
import Testing
import TestSupport

/// `syncctl history PATH` (issue 15 point 4): the server's versions with time and device
/// name (not the hex id), and `restore --rev` takes one of them.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct HistoryTests {
    @Test func historyShowsWhenAndWhichDeviceAndRestoreTakesARevision() async throws {
        let two = try await TwoDevices.start("history")
        defer { two.stop() }
        try writeFile(two.a.path("plan.txt"), "one\n")
        #expect(try await two.a.syncctl("wait", "--timeout", "60s").status == 0)
        #expect(try await two.b.syncctl("wait", "--timeout", "60s").status == 0)
        try writeFile(two.b.path("plan.txt"), "two, from beta\n")
        #expect(try await two.b.syncctl("wait", "--timeout", "60s").status == 0)

        let run = try await two.a.syncctl("history", "plan.txt", "--json")
        #expect(run.status == 0, "\(run.err)")
        let reply = try JSONDecoder().decode(HistoryReply.self, from: Data(run.out.utf8))
        #expect(reply.versions.map(\.device) == ["beta", "alpha"], "\(run.out)")
        #expect(reply.versions.allSatisfy { $0.committedAt?.hasPrefix("20") == true }, "\(run.out)")
        #expect(reply.versions.first?.size == Int64("two, from beta\n".utf8.count))
        let table = try await two.a.syncctl("history", two.a.path("plan.txt"))
        #expect(table.status == 0 && table.out.contains("COMMITTED") && table.out.contains("beta"), "\(table.out)")

        // The older one back, by its revision from the history.
        let old = try #require(reply.versions.last?.rev)
        let restore = try await two.a.syncctl("restore", "plan.txt", "--rev", "\(old)")
        #expect(restore.status == 0, "\(restore.err)")
        try await two.waitForBoth(["plan.txt": contentHash("one\n")])
        // The server's own command names the device and the time too (new columns at the end).
        let admin = try await two.server.admin(["history", "plan.txt", "--folder", "docs"])
        let header = admin.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header == "REV\tSIZE\tCONTENT_HASH\tDELETED\tDEVICE\tCOMMITTED\tDEVICE_NAME", "\(admin)")
        #expect(admin.contains("\tbeta") && admin.contains("\talpha"), "\(admin)")
        let missing = try await two.a.syncctl("history", "never.txt")
        #expect(missing.status == 1 && missing.err.contains("no version"), "\(missing.out)\(missing.err)")
    }
}
