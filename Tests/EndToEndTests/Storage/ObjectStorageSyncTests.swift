import Foundation
import ObjectStorage
import Testing
import TestSupport

/// A real sync-server process keeping its packs in an S3-speaking server (moto on
/// 127.0.0.1), two real syncd processes syncing through it: files arrive, the server
/// restarts on the bucket, `storage check` reads the bucket, `storage gc` shrinks it.
@Suite(.serialized)
struct ObjectStorageSyncTests {
    /// Retention (30 days) and the grace period (24 h) both past.
    static let later = ["SYNC_SERVER_NOW_OFFSET": "\(31 * 86_400)"]

    @Test func twoDevicesSyncThroughABucket() async throws {
        let moto = try await MotoServer.start()
        let bucket = try await TestBucket.create(on: moto, label: "e2e")
        let devices = try await TwoDevices.start("s3-two-devices", prepare: { server in
            try writeFile(server.dir + "/s3-secret", MotoServer.secretAccessKey + "\n")
            try server.writeConfig(storage: bucket.storageConfig(prefix: "team", secretFile: server.dir + "/s3-secret"))
        })
        defer { devices.stop() }
        let a = devices.a.folderPath, b = devices.b.folderPath

        try FileManager.default.createDirectory(atPath: a + "/notes", withIntermediateDirectories: true)
        for n in 0..<150 { try writeFile(a + "/notes/n\(n).txt", pseudoRandomBytes(count: 3000, seed: UInt64(2 * n + 1))) }
        try writeFile(a + "/photo.raw", pseudoRandomBytes(count: 3 << 20, seed: 0x51))
        try await devices.waitForBoth(try localTree(a), timeout: .seconds(60))
        let stored = try await bucket.packs(prefix: "team")
        #expect(stored.count > 0)
        #expect(stored.bytes >= Int64(150 * 3000 + (3 << 20)))
        #expect(try devices.server.localPackBytes() == 0, "no pack stays in the data directory")

        // The server restarts on the bucket and goes on serving; beta's edit reaches alpha.
        await devices.server.stop()
        try await devices.server.start()
        try writeFile(b + "/after-restart.txt", "written on beta")
        try await devices.waitForBoth(try localTree(b), timeout: .seconds(60))
        let check = try await devices.server.admin(["storage", "check"])
        #expect(check.hasPrefix("storage check: ok: "), "\(check)")

        // Deleting the notes and letting retention pass shrinks the bucket to the live data.
        try FileManager.default.removeItem(atPath: a + "/notes")
        // 151 deletes are a delete wave: held until approved.
        try await eventually("alpha holds the delete wave") { try await devices.a.status()?.state == .waitingForApproval }
        #expect(try await devices.a.syncctl("approve-deletes", "docs").status == 0)
        try await devices.waitForBoth(try localTree(a), timeout: .seconds(60))
        await devices.server.stop()
        let gc = try await devices.server.admin(["storage", "gc"], environment: Self.later)
        #expect(gc.contains("dropped 150 unreferenced chunk(s)"), "\(gc)")
        let after = try await bucket.packs(prefix: "team")
        let live = Int64((3 << 20) + "written on beta".utf8.count)
        #expect(Double(after.bytes) <= 1.2 * Double(live), "bucket \(stored.bytes) -> \(after.bytes) bytes for \(live) live")
        try await devices.server.start()
        #expect(try await devices.server.admin(["storage", "check"]).hasPrefix("storage check: ok: "))
        try writeFile(a + "/last.txt", "after gc")
        try await devices.waitForBoth(try localTree(a), timeout: .seconds(60))
    }

    @Test func aServerWhoseBucketIsMissingSaysSoAtStart() async throws {
        let moto = try await MotoServer.start()
        let tmp = try TemporaryDirectory("s3-no-bucket")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        try server.writeConfig(storage: """
            blobs = "s3://no-such-bucket/x"
            [storage.s3]
            endpoint = "\(moto.endpoint)"
            access_key_id = "k"
            secret_access_key = "s"
            """)
        try await server.createDatabase()
        let run = try await Child.runToExit(try Binaries.path("sync-server"), ["serve", "--config", server.configPath], timeout: 30)
        #expect(run.status == 1)
        #expect(run.err.contains("cannot check the packs in s3://no-such-bucket/x/"), "\(run.err)")
        #expect(run.err.contains("404 NoSuchBucket"), "\(run.err)")
    }
}
