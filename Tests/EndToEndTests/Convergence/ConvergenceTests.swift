import Testing

/// Randomized two-device convergence: a seeded workload (create, modify,
/// append, truncate, rename, move directories, delete, rm -r, mkdir, rmdir) runs
/// on both devices at once against real `syncd` and `sync-server` processes;
/// then, once everything is quiet, both folders must equal the server's tree
/// and no version a device last wrote may be lost (see `VersionAudit`).
///
/// CI runs the fixed `ConvergenceSeeds.ci` (fresh seeds: `scripts/soak.sh`). `SYNCD_CONVERGENCE_SEEDS` runs others instead:
/// a comma-separated list of seeds, `random:N` (N fresh seeds, printed), `ci`
/// and/or `known` (the seeds that fail today), e.g. `ci,random:20`.
/// `SYNCD_CONVERGENCE_OPS` sets the operations per device (default 50).
/// A failure prints the seed, the op log, the three trees and their
/// differences, the journals and the daemons' log tails, and keeps the test's
/// temp dir with that report and a short digest (`ConvergenceDigest`); the same seed (and op count) regenerates the same workload.
/// Timing still varies from run to run: a seed replays the operations, not
/// the interleaving with sync.
///
/// When the folders are stuck (nothing changes for `stallTimeout` while not
/// quiescent), the failure is recorded, both daemons are restarted (their
/// start-up scan and journal recovery) and the checks run again, so a report
/// also says whether a restart heals it and what else is wrong.
///
/// Each case has 5 minutes: alone one takes 20-30 s, but the first one starts with every
/// other end-to-end suite, and its workload (applied by this test process, whose few threads
/// those suites' helpers share) took 68-126 s there on 2 cores.
@Suite(.serialized, .timeLimit(.minutes(8)))
struct ConvergenceTests {
    @Test("two devices converge under a random workload", arguments: ConvergenceSeeds.selected)
    func randomWorkloadConverges(seed: UInt64) async throws {
        let workload = ConvergenceWorkload(seed: seed, opsPerDevice: ConvergenceSeeds.opsPerDevice)
        print("convergence: seed \(seed), \(workload.opsPerDevice) ops per device (replay: SYNCD_CONVERGENCE_SEEDS=\(seed))")
        try await ConvergenceRun(workload: workload).run()
    }

    /// The same workload while the daemons are killed with SIGKILL at seeded moments
    /// and restarted (each kill lands somewhere in a scan, a push, a download or a
    /// journal write): nothing lost, both converge, no staging file left behind.
    @Test("two devices converge while their daemons are killed with SIGKILL", arguments: ConvergenceSeeds.selectedForKills)
    func randomWorkloadConvergesUnderKills(seed: UInt64) async throws {
        let workload = ConvergenceWorkload(seed: seed, opsPerDevice: ConvergenceSeeds.opsPerDevice)
        print("convergence under kill -9: seed \(seed) (replay: SYNCD_KILL_SEEDS=\(seed))")
        try await ConvergenceRun(workload: workload, kills: 6).run()
    }

    @Test func workloadIsAPureFunctionOfTheSeed() {
        let one = ConvergenceWorkload(seed: 7, opsPerDevice: 60)
        #expect(one == ConvergenceWorkload(seed: 7, opsPerDevice: 60))
        #expect(one != ConvergenceWorkload(seed: 8, opsPerDevice: 60))
        // Every kind of operation occurs, on both devices.
        for ops in one.ops {
            let kinds = Set(ops.map { "\($0.action)".split(separator: " ")[0] })
            #expect(kinds.isSuperset(of: ["create", "modify", "append", "truncate", "rename", "delete", "mkdir"]), "\(kinds)")
        }
        let all = (1...10).flatMap { ConvergenceWorkload(seed: $0, opsPerDevice: 50).ops.joined() }
        let kinds = Set(all.map { "\($0.action)".split(separator: " ")[0] })
        #expect(kinds == ["create", "modify", "append", "truncate", "rename", "mvdir", "delete", "rm", "mkdir", "rmdir"])
    }

    /// The audit must be able to fail: a version found nowhere is reported,
    /// and each of the four ways of surviving is recognised.
    @Test func versionAuditFindsLostVersions() {
        func v(_ hash: String, _ lineage: String...) -> TrackedVersion {
            TrackedVersion(device: "alpha", opIndex: 0, contentHash: hash, lineage: lineage)
        }
        let copy = "d/a (conflict alpha 2025-01-01 000000).txt"
        let tree: [String: TreeItem] = ["d": .directory, "d/b.txt": .file("h1"), copy: .file("h2"), "e": .file("h3")]
        let history: [String: Set<String>] = ["d/a.txt": ["h4"], "old (conflict beta 2025-01-01 000000)": ["h5"]]
        let conflicts = ["old (conflict beta 2025-01-01 000000)"]
        func locate(_ version: TrackedVersion) -> String? {
            VersionAudit.locate(version, tree: tree, history: history, conflictPaths: conflicts)
        }
        #expect(locate(v("h1", "d/a.txt", "d/b.txt")) == "at d/b.txt")
        #expect(locate(v("h2", "d/a.txt")) == "conflict copy \(copy)")
        #expect(locate(v("h4", "d/a.txt", "d/c.txt")) == "history of d/a.txt")
        #expect(locate(v("h5", "x")) == "history of conflict copy old (conflict beta 2025-01-01 000000)")
        // Lost: not in the tree, not in any fetched history.
        #expect(locate(v("h9", "d/a.txt")) == nil)
        // At a path outside its lineage (not a conflict copy) does not count.
        #expect(locate(v("h3", "d/a.txt")) == nil)
        // A directory is not a file, whatever its hash.
        #expect(VersionAudit.locate(v("hd", "d"), tree: ["d": .directory], history: [:], conflictPaths: []) == nil)
    }

    /// A file written into a directory the other device moved goes where the moves take it:
    /// through each move, in order, whose source is the path or a directory above it, and
    /// nowhere else.
    @Test func movedAlongFollowsTheRunsMovesOfThePathAndItsDirectories() {
        let moves: [(from: String, to: String)] = [("x y", "sub"), ("sub", "d1/sub"), ("other", "elsewhere"), ("x", "z")]
        #expect(VersionAudit.movedAlong(["x y/e.bin"], moves: moves) == ["d1/sub/e.bin", "sub/e.bin"])
        #expect(VersionAudit.movedAlong(["a.txt", "x y/a.txt"], moves: moves) == ["d1/sub/a.txt", "sub/a.txt"])
        // "x y2" is not inside "x y", nor "xa" inside "x"; a path no move touches goes nowhere.
        #expect(VersionAudit.movedAlong(["x y2/e.bin", "xa/f"], moves: moves).isEmpty)
        // A move made before (earlier in the list) does not take what a later one brought.
        #expect(VersionAudit.movedAlong(["sub/f"], moves: [("x y", "sub")]).isEmpty)
        // Moves back and forth, or into what they moved, end (one pass).
        #expect(VersionAudit.movedAlong(["p/f"], moves: [("p", "q"), ("q", "p")]) == ["q/f"])
        #expect(VersionAudit.movedAlong(["a/f"], moves: [("a", "c/a"), ("c", "a/c"), ("a", "c/a")]) == ["a/c/a/f", "c/a/c/a/f", "c/a/f"])
    }
}
