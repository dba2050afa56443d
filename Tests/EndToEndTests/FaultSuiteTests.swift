import Foundation
import GRDB
import SyncCore
import Testing
import TestSupport

/// Seeded faults between real processes: a proxy that resets, stalls and delays
/// connections under two devices' bulk two-way traffic, and the server killed with
/// SIGKILL in the middle of uploads and commits. Figures are printed at the end of each
/// (replay a chaos seed with SYNCD_FAULT_SEED=<seed>).
@Suite(.serialized, .timeLimit(.minutes(8)))
struct FaultSuiteTests {
    static let dir = Hashing.contentHash(chunks: [])

    static var chaosSeeds: [UInt64] {
        ProcessInfo.processInfo.environment["SYNCD_FAULT_SEED"].flatMap(UInt64.init).map { [$0] } ?? [7]
    }

    /// Both sides write at once: ~500 files and a few multi-MiB ones, then deletes,
    /// edits and a directory rename, all through a proxy that keeps failing.
    @Test(arguments: chaosSeeds)
    func twoDevicesConvergeThroughAFaultyNetwork(seed: UInt64) async throws {
        let (two, proxy) = try await TwoDevices.startBehindProxy("chaos-\(seed)", throughProxy: ["alpha", "beta"])
        defer {
            proxy.stop()
            two.stop()
        }
        proxy.setChaos(FaultProxy.Chaos(seed: seed, reset: 0.005, stall: 0.005, stallMs: 1_500, delay: 0.05))
        let (a, b, server, credA) = (two.a, two.b, two.server, two.credentialA)
        let started = ContinuousClock.now
        var expected: [String: String] = [:]
        let fm = FileManager.default
        for (d, name, count) in [(a, "a", 400), (b, "b", 100)] {
            for group in 0..<5 {
                let folder = "\(name)\(group)"
                try fm.createDirectory(atPath: d.path(folder), withIntermediateDirectories: true)
                expected[folder] = Self.dir
                for i in 0..<(count / 5) {
                    let text = "\(name) file \(group)/\(i) seed \(seed)"
                    try writeFile(d.path("\(folder)/f\(i).txt"), text)
                    expected["\(folder)/f\(i).txt"] = contentHash(text)
                }
            }
        }
        for (d, name, sizes) in [(a, "a", [3 << 20, 5 << 20]), (b, "b", [2 << 20])] {
            for (i, size) in sizes.enumerated() {
                let bytes = pseudoRandomBytes(count: size, seed: seed &+ UInt64(i * 10 + name.count))
                try writeFile(d.path("\(name)-big\(i).bin"), bytes)
                expected["\(name)-big\(i).bin"] = contentHash(bytes)
            }
        }
        try await two.waitForBoth(expected, timeout: .seconds(150))
        // Then changes on both sides while the faults go on.
        for i in 0..<20 {
            try fm.removeItem(atPath: a.path("a0/f\(i).txt"))
            expected["a0/f\(i).txt"] = nil
        }
        try writeFile(b.path("a1/f0.txt"), "edited on beta")
        expected["a1/f0.txt"] = contentHash("edited on beta")
        try fm.moveItem(atPath: b.path("b2"), toPath: b.path("b2 renamed"))
        for key in expected.keys where key == "b2" || key.hasPrefix("b2/") {
            expected["b2 renamed" + key.dropFirst(2)] = expected.removeValue(forKey: key)
        }
        try await two.waitForBoth(expected, timeout: .seconds(150))
        let converged = ContinuousClock.now - started
        proxy.setChaos(nil)
        try await a.waitUntilIdle(timeout: .seconds(60))
        try await b.waitUntilIdle(timeout: .seconds(60))
        let live = try await server.client(credential: credA).tree(folder: "docs").filter { !$0.value.deleted }
        #expect(live.mapValues(\.contentHash) == expected, "the server's tree differs")
        for d in [a, b] {
            let staging = fm.enumerator(atPath: d.folderPath)?.allObjects.compactMap { $0 as? String }
                .filter { ($0 as NSString).lastPathComponent.hasPrefix(".syncd-tmp-") } ?? []
            #expect(staging.isEmpty, "staging files left: \(staging)")
            let status = try #require(try await d.status())
            #expect(status.errors.isEmpty, "\(status.errors)")
        }
        print("fault suite: chaos seed \(seed): \(proxy.chaosReport); \(expected.count) entries converged in \(converged)")
    }

    /// The server is killed with SIGKILL three times while two devices upload and
    /// commit, and restarted on the same data dir: the database passes integrity_check,
    /// every chunk a live entry names is in the store, and the devices converge.
    @Test func theServerKilledMidUploadAndMidCommitLosesNothing() async throws {
        let two = try await TwoDevices.start("server-kill")
        defer { two.stop() }
        var expected: [String: String] = [:]
        var rng = SplitMix64(seed: 4242)
        var kills = 0
        let fm = FileManager.default
        for round in 0..<3 {
            try fm.createDirectory(atPath: two.a.path("r\(round)"), withIntermediateDirectories: true)
            expected["r\(round)"] = Self.dir
            for i in 0..<100 {
                let text = "round \(round) file \(i)"
                try writeFile(two.a.path("r\(round)/f\(i).txt"), text)
                expected["r\(round)/f\(i).txt"] = contentHash(text)
            }
            let bytes = pseudoRandomBytes(count: 6 << 20, seed: UInt64(round))
            try writeFile(two.b.path("big\(round).bin"), bytes)
            expected["big\(round).bin"] = contentHash(bytes)
            try await Task.sleep(for: .milliseconds(rng.int(in: 20...400)))
            await two.server.kill9()
            kills += 1
            try await Task.sleep(for: .milliseconds(rng.int(in: 50...500)))
            try await two.server.start()
        }
        let started = ContinuousClock.now
        try await two.waitForBoth(expected, timeout: .seconds(150))
        try await two.a.waitUntilIdle(timeout: .seconds(60))
        try await two.b.waitUntilIdle(timeout: .seconds(60))
        let converged = ContinuousClock.now - started
        await two.server.stop()
        if !two.server.onPostgres {
            #expect(try await two.server.sql("PRAGMA integrity_check") == [["ok"]], "the SQLite file survived the kills")
        }
        let chunkLists = try await two.server.sql("SELECT chunks FROM entries WHERE NOT deleted AND kind = 'file' AND chunks <> ''").map { $0[0] }
        let referenced = Set(chunkLists.flatMap { $0.split(separator: ",").map(String.init) })
        #expect(!referenced.isEmpty)
        // Every referenced chunk indexed, readable and matching its hash (exits 1 otherwise).
        let check = try await two.server.admin(["storage", "check"])
        #expect(check.hasPrefix("storage check: ok"), "\(check)")
        print("fault suite: server killed \(kills) times mid-upload; \(expected.count) entries, \(referenced.count) chunks; converged \(converged) after the last restart")
    }
}
