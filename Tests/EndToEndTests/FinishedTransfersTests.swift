import Foundation
import SyncControl
import Testing
import TestSupport

/// `status --json` counts finished files each way (`done`) and names the last ones (`recent`).
@Suite(.serialized)
struct FinishedTransfersTests {
    @Test func statusCountsFinishedFilesEachWay() async throws {
        let rig = try await TwoDevices.start("finished")
        defer { rig.stop() }
        for n in 0..<5 { try writeFile(rig.a.path("f\(n).txt"), String(repeating: "x", count: 100 * (n + 1))) }
        try await rig.waitForBoth(try localTree(rig.a.folderPath))
        try await eventually("alpha counts 5 files up") { try await rig.a.status()?.done?.filesUploaded == 5 }
        let a = try #require(try await rig.a.status())
        #expect(a.done?.bytesUploaded == 1500)
        #expect(a.done?.filesDownloaded == 0)
        #expect(Set(a.recent?.map(\.path) ?? []) == Set((0..<5).map { "f\($0).txt" }))
        #expect(a.recent?.allSatisfy { $0.direction == "upload" } == true)
        try await eventually("beta counts 5 files down") { try await rig.b.status()?.done?.filesDownloaded == 5 }
        let b = try #require(try await rig.b.status())
        #expect(b.done?.bytesDownloaded == 1500)
        #expect(b.recent?.first { $0.path == "f4.txt" }?.bytes == 500)
    }
}
