import Foundation
import Testing
import TestSupport

/// Another user on the same machine: the control socket is 0600 in a 0700
/// directory, and a credential file others can read is refused.
struct LocalAccessTests {
    @Test func theControlSocketIsPrivateAndALooseCredentialIsRefused() async throws {
        let two = try await TwoDevices.start("local-access")
        defer { two.stop() }
        var st = stat()
        #expect(lstat(two.a.socketPath, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(lstat((two.a.socketPath as NSString).deletingLastPathComponent, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o700)

        await two.b.stop()
        chmod(two.b.dir + "/credential", 0o644)
        try await two.b.start(waitUntilRunning: false)
        try await eventually("syncd refuses to start") { two.b.terminationStatus != nil }
        #expect(two.b.terminationStatus != 0)
        #expect(two.b.log.contains("chmod 600"))
    }
}
