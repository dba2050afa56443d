import Foundation
import SyncControl
import Testing
import TestSupport

/// A device revoked on the running server (`sync-server device revoke`) says so in its
/// status, as an error with what to do, instead of retrying a 401 as if offline.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct RevokedDeviceTests {
    @Test func aRevokedDeviceShowsWhyAndWhatToDo() async throws {
        let rig = try await TwoDevices.start("revoked")
        defer { rig.stop() }
        try writeFile(rig.a.path("before.txt"), "before")
        try await rig.waitForBoth(try localTree(rig.a.folderPath))

        try await rig.server.admin(["device", "revoke", "beta"])
        try writeFile(rig.a.path("after.txt"), "after the revocation")
        var shown: PathErrorStatus?
        try await eventually("beta shows that its credential is refused") {
            let folder = try await rig.b.control.status().folders.first
            shown = folder?.errors.first { $0.code == "credential_rejected" }
            return folder?.state == .error && shown != nil
        }
        #expect(shown?.message.contains("revoked") == true, "\(String(describing: shown))")
        #expect(shown?.message.contains("sync-server device add") == true)
        let status = try await rig.b.syncctl("status")
        #expect(status.status == 1, "an error is exit status 1")
        #expect(!FileManager.default.fileExists(atPath: rig.b.path("after.txt")))
    }
}
