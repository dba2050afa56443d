import Foundation
import SyncClient
import SyncCore
import Testing
import TestSupport

/// A real `sync-server` killed with SIGKILL at each step of garbage collection and
/// compaction (`SYNC_SERVER_CRASH_POINT`, in a seeded order, at the first or second time the
/// step is reached): after each kill the store checks clean before and after the restart,
/// every live file reads back, and at the end a real syncd gets every live file.
@Suite(.serialized)
struct CompactionCrashTests {
    static let points = ["gc-after-drop", "compact-torn-copy", "compact-after-copy", "compact-after-move", "compact-after-delete"]

    @Test func killedAtAnyStepOfCollectionOrCompactionLosesNoLiveChunk() async throws {
        let tmp = try TemporaryDirectory("compaction-crash")
        defer { tmp.remove() }
        let server = try ServerProcess(dir: try tmp.sub("server"))
        defer { server.stop() }
        let credential = try await server.provision(folder: "docs", device: "writer")
        let load = ProtocolLoad(client: server.client(credential: credential), folder: "docs")
        let seed: UInt64 = 0x5eed_0c0
        var rng = SplitMix64(seed: seed)
        var order = Self.points
        for i in order.indices.reversed() { order.swapAt(i, rng.int(in: 0...i)) }
        var live: [String: ProtocolLoad.File] = [:]
        try await server.start()
        for (round, point) in order.enumerated() {
            // Two packs (each start begins one) of which four files in five are deleted.
            for part in 0..<2 {
                if part == 1 {
                    await server.stop()
                    try await server.start()
                }
                let files = try await load.push(
                    prefix: "r\(round)/p\(part)", count: 100, size: rng.int(in: 1_000...9_000), seed: rng.next())
                let kept = files.filter { $0.key.hasSuffix("0.bin") || $0.key.hasSuffix("5.bin") }
                try await load.delete(files.filter { kept[$0.key] == nil })
                live.merge(kept) { _, new in new }
            }
            await server.stop()
            let occurrence = point == "gc-after-drop" ? 1 : rng.int(in: 1...2)
            let armed = "\(point)@\(occurrence)"
            try await server.start(
                environment: StorageGCTests.later.merging(["SYNC_SERVER_CRASH_POINT": armed]) { _, new in new }, waitUntilHealthy: false)
            let signal = try await server.waitForExit(timeout: .seconds(60))
            #expect(signal == SIGKILL, "round \(round): \(armed) never reached (seed \(seed)); log tail:\n\(server.log.suffix(2000))")
            let atTheKill = try await server.admin(["storage", "check"])
            #expect(atTheKill.hasPrefix("storage check: ok"), "round \(round), killed at \(armed): \(atTheKill)")
            try await server.start()
            try await load.expectReadable(live)
            let restarted = try await server.admin(["storage", "check"])
            #expect(restarted.hasPrefix("storage check: ok"), "round \(round), restarted after \(armed): \(restarted)")
        }

        // One round to its end, then a device syncs the folder down.
        await server.stop()
        try await server.start(environment: StorageGCTests.later)
        let liveBytes = StorageGCTests.liveBytes(live)
        try await eventually("the packs shrink to the live data", timeout: .seconds(60)) {
            Double(try await server.packBytes()) <= 1.2 * Double(liveBytes + Int64(live.count * 40))
        }
        let device = try DaemonProcess(dir: try tmp.sub("device"), folderID: "docs", serverURL: server.url, credential: credential)
        try await device.start()
        defer { device.stop() }
        try await eventually("the device has every live file", timeout: .seconds(60)) {
            let tree = try localTree(device.folderPath)
            return live.allSatisfy { tree[$0.key] == Hashing.contentHash(chunks: [$0.value.hash]) }
        }
        print("compaction crash: \(order.count) kills (\(order.joined(separator: ", "))), \(live.count) live files, seed \(seed)")
    }
}
