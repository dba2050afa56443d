import Foundation
import SyncClient
import SyncCore
import Testing
import TestSupport

/// Deletes made on one device, applied on the other: each file to the trash whole; a file
/// edited here before the delete arrived stays and goes back up (an edit beats a delete).
@Suite(.serialized, .timeLimit(.minutes(4)))
struct RemoteDeleteTests {
    static let dir = Hashing.contentHash(chunks: [])

    @Test func manyFilesDeletedOnOneDeviceGoToTheTrashHereAndAnEditAmongThemStays() async throws {
        let two = try await TwoDevices.start("deletes", extraFolderConfig: "max_delete_fraction = 1\nmax_delete_count = 100000", logLevel: "debug")
        defer { two.stop() }
        try FileManager.default.createDirectory(atPath: two.a.path("photos"), withIntermediateDirectories: true)
        var expected = ["photos": Self.dir]
        for i in 0..<300 {
            try writeFile(two.a.path("photos/p\(i).jpg"), "photo \(i)")
            expected["photos/p\(i).jpg"] = contentHash("photo \(i)")
        }
        try await two.waitForBoth(expected, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        try await two.b.waitUntilIdle()
        two.a.stop()
        // Alpha's edit of p150, made while its daemon is stopped: the delete must not take it.
        try writeFile(two.a.path("photos/p150.jpg"), "photo 150, edited")
        for i in 0..<300 { try FileManager.default.removeItem(atPath: two.b.path("photos/p\(i).jpg")) }
        let client = two.server.client(credential: two.credentialA)
        try await eventually("beta commits the deletes", timeout: .seconds(30)) {
            try await client.allRevisions(folder: "docs").filter { $0.deleted && $0.path.hasPrefix("photos/p") }.count == 300
        }
        try await two.b.waitUntilIdle()
        try await two.a.start()
        let final = ["photos": Self.dir, "photos/p150.jpg": contentHash("photo 150, edited")]
        try await two.waitForBoth(final, timeout: .seconds(60))
        try await two.a.waitUntilIdle()
        // The 299 others are in alpha's trash, whole.
        let trashed = try localTree(two.a.dir + "/state/trash").filter { $0.value != Self.dir }
        #expect(trashed.count == 299, "\(trashed.count) files in alpha's trash")
        #expect(trashed.values.allSatisfy { hash in (0..<300).contains { contentHash("photo \($0)") == hash } })
    }
}
