import Foundation
import SyncCore
import Testing
import TestSupport

/// What the three programs say about themselves.
@Suite struct CommandLineTests {
    @Test(arguments: ["syncd", "syncctl", "sync-server"])
    func versionIsTheProducts(_ program: String) throws {
        let run = try Process.capture(try Binaries.path(program), ["--version"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.trimmingCharacters(in: .whitespacesAndNewlines) == ProductVersion.current)
    }
}
