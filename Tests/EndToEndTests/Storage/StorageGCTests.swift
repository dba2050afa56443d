import Foundation
import SyncClient
import SyncCore
import Testing
import TestSupport

/// `sync-server storage gc` and the server's own collection, end to end with real
/// processes: deleted files' chunks are reclaimed once retention has passed and the packs
/// shrink to the live data. The clock is moved with `SYNC_SERVER_NOW_OFFSET`.
@Suite(.serialized)
struct StorageGCTests {
    /// Retention (30 days) and the grace period (24 h) both past.
    static let later = ["SYNC_SERVER_NOW_OFFSET": "\(31 * 86_400)"]

    /// A server holding 2,000 files of 4 KiB of which 1,800 were deleted; the 200 left.
    static func fill(_ tmp: TemporaryDirectory) async throws -> (ServerProcess, ProtocolLoad, [String: ProtocolLoad.File]) {
        let server = try ServerProcess(dir: try tmp.sub("server"))
        let credential = try await server.provision(folder: "docs", device: "writer")
        try await server.start()
        let load = ProtocolLoad(client: server.client(credential: credential), folder: "docs")
        let files = try await load.push(prefix: "d", count: 2_000, size: 4096, seed: 0x6c)
        let gone = files.filter { !$0.key.hasSuffix("0.bin") }
        try await load.delete(gone)
        return (server, load, files.filter { $0.key.hasSuffix("0.bin") })
    }

    static func liveBytes(_ files: [String: ProtocolLoad.File]) -> Int64 { files.values.reduce(0) { $0 + Int64($1.size) } }

    @Test func storageGCShrinksThePacksToTheLiveDataAndIsRefusedWhileTheServerRuns() async throws {
        let tmp = try TemporaryDirectory("storage-gc-cli")
        defer { tmp.remove() }
        let (server, load, live) = try await Self.fill(tmp)
        defer { server.stop() }
        #expect(live.count == 200)
        let sync = try Binaries.path("sync-server")
        let refused = try await Child.capture(sync, ["storage", "gc", "--config", server.configPath], environment: Self.later)
        #expect(refused.status == 1)
        #expect(refused.err.contains("is in use by another sync-server process (pid"), "\(refused.err)")
        let second = try await Child.capture(sync, ["serve", "--config", server.configPath])
        #expect(second.status == 1)
        #expect(second.err.contains("is in use by another sync-server process (pid"), "\(second.err)")

        await server.stop()
        let before = try await server.packBytes()
        #expect(before > Self.liveBytes(live), "the packs are where the server keeps them (the S3 pass: the bucket)")
        if server.sharedPrefix != nil { #expect(try server.localPackBytes() == 0) }
        let started = ContinuousClock.now
        let out = try await server.admin(["storage", "gc"], environment: Self.later)
        let took = ContinuousClock.now - started
        #expect(out.hasPrefix("storage gc: pruned 1800 old version(s); dropped 1800 unreferenced chunk(s) (7.0 MiB)"), "\(out)")
        let after = try await server.packBytes()
        #expect(Double(after) <= 1.2 * Double(Self.liveBytes(live)), "packs \(before) -> \(after) bytes for \(Self.liveBytes(live)) live")
        print("storage gc (2,000 x 4 KiB, 1,800 deleted): packs \(before) -> \(after) bytes in \(took): \(out)")

        // The server starts on what gc left (it refuses nothing), everything live reads back,
        // and a client still syncs.
        try await server.start()
        #expect(try await server.admin(["storage", "check"]).hasPrefix("storage check: ok: 200 chunk(s)"))
        try await load.expectReadable(live)
        let more = try await load.push(prefix: "after", count: 3, size: 5000, seed: 0x6d)
        try await load.expectReadable(more)
        #expect(try await load.client.tree(folder: "docs").count == 203)
    }

    @Test func theServerCollectsByItselfAndSaysSo() async throws {
        let tmp = try TemporaryDirectory("storage-gc-server")
        defer { tmp.remove() }
        let (server, load, live) = try await Self.fill(tmp)
        defer { server.stop() }
        await server.stop()
        try await server.start(environment: Self.later)
        try await eventually("the packs shrink to the live data", timeout: .seconds(60)) {
            Double(try await server.packBytes()) <= 1.2 * Double(Self.liveBytes(live))
        }
        try await eventually("the round is logged") { server.log.contains("storage gc: pruned 1800 old version(s)") }
        try await load.expectReadable(live)
    }
}
