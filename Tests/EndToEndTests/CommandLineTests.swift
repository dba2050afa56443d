import Foundation
import SyncCore
import Testing
import TestSupport

/// What the three programs say about themselves.
@Suite struct CommandLineTests {
    @Test(arguments: ["syncd", "syncctl", "sync-server"])
    func versionIsTheProducts(_ program: String) async throws {
        let run = try await Child.capture(try Binaries.path(program), ["--version"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.trimmingCharacters(in: .whitespacesAndNewlines) == ProductVersion.current)
    }

    /// `status` exits 1 when it shows a problem: a folder offline (or in error).
    @Test func statusExitsOneWhileAFolderIsOffline() async throws {
        let rig = try await Rig.start("status-offline")
        defer { rig.stop() }
        try await rig.daemon.waitUntilIdle()
        let fine = try await rig.daemon.syncctl("status")
        #expect(fine.status == 0, "\(fine.out)\(fine.err)")
        await rig.server.stop()
        try writeFile(rig.daemon.path("a.txt"), "not sent yet\n")
        try await eventually("offline") { try await rig.daemon.status()?.state == .offline }
        let offline = try await rig.daemon.syncctl("status")
        #expect(offline.status == 1 && offline.out.contains("offline"), "\(offline.out)\(offline.err)")
        #expect(try await rig.daemon.syncctl("status", "--json").status == 1)
    }
}
