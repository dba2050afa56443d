import Foundation
import Testing

/// SIGKILL the daemon with work pending: after a restart everything arrives,
/// and exactly once (one revision per file version).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct CrashRecoveryTests {
    @Test func pendingWorkSurvivesSigkill() async throws {
        let rig = try await Rig.start("crash")
        defer { rig.stop() }
        let d = rig.daemon

        // Phase 1: the server is down, so 200 changes pile up in the journal.
        rig.server.stop()
        var expected: [String: String] = [:]
        for i in 0..<200 {
            let text = "file \(i)\n"
            try writeFile(d.path("f\(i).txt"), text)
            expected["f\(i).txt"] = contentHash(text)
        }
        try await eventually("200 uploads pending") { try await d.status()?.pendingUploads == 200 }
        d.kill9()
        try await rig.server.start()
        try await d.start()
        try await rig.waitForServerTree(expected)
        #expect(try await rig.folderRev() == 200)

        // Phase 2: the server is up; kill the daemon in the middle of pushing 200 more.
        for i in 200..<400 {
            let text = "file \(i)\n"
            try writeFile(d.path("f\(i).txt"), text)
            expected["f\(i).txt"] = contentHash(text)
        }
        d.kill9()
        try await d.start()
        try await rig.waitForServerTree(expected)
        try await eventually("folder idle") { try await d.status()?.state == .idle }
        #expect(try await rig.folderRev() == 400, "each file version committed exactly once")
    }
}
