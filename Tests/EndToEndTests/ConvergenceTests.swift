import Foundation
import Glibc
import SyncClient
import SyncControl
import SyncCore
import Testing

/// Randomized two-device convergence: a seeded workload (create, modify,
/// append, truncate, rename, move directories, delete, rm -r, mkdir, rmdir) runs
/// on both devices at once against real `syncd` and `sync-server` processes;
/// then, once everything is quiet, both folders must equal the server's tree
/// and no version a device last wrote may be lost (see `VersionAudit`).
///
/// CI runs `ConvergenceSeeds.ci` and one fresh random seed. `SYNCD_CONVERGENCE_SEEDS` runs others instead:
/// a comma-separated list of seeds, `random:N` (N fresh seeds, printed), `ci`
/// and/or `known` (the seeds that fail today), e.g. `ci,random:20`.
/// `SYNCD_CONVERGENCE_OPS` sets the operations per device (default 50).
/// A failure prints the seed, the op log, the three trees and their
/// differences, the journals and the daemons' log tails, and keeps the test's
/// temp dir; the same seed (and op count) regenerates the same workload.
/// Timing still varies from run to run: a seed replays the operations, not
/// the interleaving with sync.
///
/// When the folders are stuck (nothing changes for `stallTimeout` while not
/// quiescent), the failure is recorded, both daemons are restarted (their
/// start-up scan and journal recovery) and the checks run again, so a report
/// also says whether a restart heals it and what else is wrong.
@Suite(.serialized, .timeLimit(.minutes(3)))
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
}

/// Which seeds run: `ci` by default; see `ConvergenceTests` for the variable.
enum ConvergenceSeeds {
    /// Fixed seeds for CI: all three together take about 15 s on the 2-core machine.
    /// Chosen from 20 candidates by repeated runs, also under heavy load (63: 12 of 12
    /// passed, 111: 9 of 9, 160: 3 of 3, plus the final runs). Bugs 1-3 and 5 below are
    /// races, so any seed may still catch one now and then: that is a sync bug showing,
    /// not a flaky test (read its report).
    static let ci: [UInt64] = [63, 111, 160]

    /// Seeds that failed because of real sync bugs (reduced reproductions are in
    /// ConvergenceBugReproTests.swift; `SYNCD_CONVERGENCE_SEEDS=known` runs them all):
    /// - Bug 1, fixed: a vanished directory pushed with paths below it left their journal
    ///   rows `running` for good (seeds 1, 2, 3, 18, 54; some runs of 35, 51, 106, 125).
    /// - Bug 2, fixed: a stale own feed entry applied after a newer push put the older
    ///   version back (29, 156, 6): the planner now ignores entries older than the base.
    /// - Bug 4, fixed by the watcher's own watch table (decision 0005): a directory deleted,
    ///   made again and renamed reported new entries under its old path (59).
    /// - Bug 5, fixed: a write right after a download was recorded as the downloaded
    ///   content (the post-rename stat is used only when it still matches the staged file).
    /// - Bug 3, NOT fixed: a directory moved away and re-created by a download before its
    ///   push ran: tombstones for its other children are never sent (38; some runs of 40, 93).
    /// After those fixes, on 2026-11-22, of all 25 known and CI seeds only 38 (bug 3) and 2
    /// (beta keeps missing a subtree `sub/d1` the server has; not analysed) still failed.
    /// Seeds of the kill -9 variant in CI; `SYNCD_KILL_SEEDS` (same syntax as above) others.
    static let killCI: [UInt64] = [63, 111]

    static var selectedForKills: [UInt64] {
        parse(ProcessInfo.processInfo.environment["SYNCD_KILL_SEEDS"] ?? "ci,random:1", ci: killCI)
    }

    static let knownFailing: [UInt64] = [
        1, 2, 3, 6, 18, 25, 29, 35, 38, 40, 51, 54, 59, 93, 106, 125, 156, 158, 180, 205, 214, 253,
    ]

    /// Without the variable: the fixed CI seeds and one fresh random seed (printed with
    /// its replay line), for both variants. (The two races fresh seeds found on
    /// 2026-11-23 are fixed: a directory replaced by a file or symlink, and a commit
    /// never recorded across kill -9; 75 fresh seeds under disk load then passed.)
    static var selected: [UInt64] {
        parse(ProcessInfo.processInfo.environment["SYNCD_CONVERGENCE_SEEDS"] ?? "ci,random:1", ci: ci)
    }

    static func parse(_ spec: String?, ci: [UInt64]) -> [UInt64] {
        guard let spec, !spec.isEmpty else { return ci }
        var seeds: [UInt64] = []
        for token in spec.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if token == "ci" {
                seeds += ci
            } else if token == "known" {
                seeds += knownFailing
            } else if token.hasPrefix("random:"), let n = Int(token.dropFirst("random:".count)), n > 0 {
                seeds += (0..<n).map { _ in UInt64.random(in: 1...UInt64(UInt32.max)) }
            } else if let seed = UInt64(token) {
                seeds.append(seed)
            } else {
                fatalError("SYNCD_CONVERGENCE_SEEDS: cannot read \"\(token)\" (want seeds, `random:N`, `ci` or `known`, comma-separated)")
            }
        }
        return seeds
    }

    static var opsPerDevice: Int {
        ProcessInfo.processInfo.environment["SYNCD_CONVERGENCE_OPS"].flatMap { Int($0) } ?? 50
    }
}

/// One seed's run: rig, initial tree, concurrent workload, quiescence, checks, report.
struct ConvergenceRun {
    let workload: ConvergenceWorkload
    /// SIGKILLs of a daemon (seeded: which one, when) while the workload runs.
    var kills = 0
    static let quiescenceTimeout: Duration = .seconds(90)
    static let stallTimeout: Duration = .seconds(15)

    func run() async throws {
        let rig = try await TwoDevices.start(
            "converge-\(workload.seed)",
            // The delete-wave guard would (rightly) hold this workload's deletes for approval.
            extraFolderConfig: "max_delete_fraction = 1.0")
        var keepState = false
        defer {
            if keepState {
                rig.a.stop()
                rig.b.stop()
                rig.server.stop()
            } else {
                rig.stop()
            }
        }
        let devices = [rig.a, rig.b]

        // Initial tree, made on alpha, synced to beta before the random phase.
        var expected: [String: String] = [ConvergenceWorkload.anchor: contentHash("never touched by the workload")]
        try writeFile(rig.a.path(ConvergenceWorkload.anchor), "never touched by the workload")
        for dir in workload.initialDirectories {
            try FileManager.default.createDirectory(atPath: rig.a.path(dir), withIntermediateDirectories: true)
            expected[dir] = Hashing.contentHash(chunks: [])
        }
        for file in workload.initialFiles {
            try writeFile(rig.a.path(file.path), file.bytes)
            expected[file.path] = contentHash(file.bytes)
        }
        try await rig.waitForBoth(expected)

        // Both devices at once.
        let started = ContinuousClock.now
        async let alphaRun = Self.runDevice(ops: workload.ops[0], root: rig.a.folderPath, started: started)
        async let betaRun = Self.runDevice(ops: workload.ops[1], root: rig.b.folderPath, started: started)
        async let killed = Self.killRandomly(devices, count: kills, seed: workload.seed)
        let runs = try await [alphaRun, betaRun]
        let killLog = try await killed
        if !killLog.isEmpty { print("convergence: kills \(killLog.joined(separator: ", "))") }
        let workloadTime = ContinuousClock.now - started

        let credential = try String(contentsOfFile: rig.a.dir + "/credential", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let client = rig.server.client(credential: credential)
        var problems: [String] = []
        let first = await Self.quiesce(client: client, devices: devices)
        var snapshot = first.snapshot
        if let firstProblem = first.problem {
            problems.append(firstProblem.description)
            if case .stuck = firstProblem {
                for (name, d) in zip(ConvergenceWorkload.devices, devices) {
                    problems.append("  \(name)'s journal when stuck (path|state|dirty|attempts|last_error):\n"
                        + journalDump(d.dir + "/state/index.sqlite"))
                }
                // A restart turns journal rows stuck as running back into pending, and its
                // full scan catches what the watcher missed: see whether that heals it, and
                // what else is wrong.
                for d in devices { d.stop() }
                for d in devices { try await d.start() }
                let again = await Self.quiesce(client: client, devices: devices)
                snapshot = again.snapshot
                problems.append("after restarting both daemons: " + (again.problem?.description ?? "quiescent"))
            }
        }
        let settleTime = ContinuousClock.now - started - workloadTime

        // No download staging file left in either folder (a kill -9 leaves them; a start clears them).
        for (name, d) in zip(ConvergenceWorkload.devices, devices) {
            let walker = FileManager.default.enumerator(atPath: d.folderPath)
            while let path = walker?.nextObject() as? String {
                if (path as NSString).lastPathComponent.hasPrefix(".syncd-tmp-") {
                    problems.append("staging file left in \(name)'s folder: \(path)")
                }
            }
        }

        // No version lost.
        var audit = AuditResult()
        if snapshot.treesConverged {
            audit = try await Self.audit(runs: runs, tree: snapshot.server, client: client, rig: rig)
            for lost in audit.lost {
                problems.append(
                    "lost version: \(lost.version.device) op #\(lost.version.opIndex) wrote \(lost.version.contentHash.prefix(12)) "
                        + "(lineage \(lost.version.lineage)); \(lost.elsewhere)")
            }
        }

        let applied = runs.map { $0.log.filter(\.outcome.isApplied).count }
        let summary =
            "seed \(workload.seed): applied \(applied[0])/\(workload.opsPerDevice) on alpha, \(applied[1])/\(workload.opsPerDevice) on beta "
            + "in \(workloadTime.rounded); quiet after \(settleTime.rounded) more; "
            + "\(snapshot.server.count) entries, \(snapshot.server.keys.filter { $0.contains(VersionAudit.conflictMarker) }.count) conflict copies; "
            + "versions checked: \(audit.found.count) (\(audit.foundSummary))"
        print("convergence: " + summary)
        if !snapshot.errors.isEmpty { print("convergence: note, path errors at quiescence: \(snapshot.errors)") }
        guard problems.isEmpty else {
            keepState = true
            print(Self.report(workload: workload, runs: runs, snapshot: snapshot, problems: problems, rig: rig))
            Issue.record(Comment(rawValue:
                "\(summary)\n\(problems.joined(separator: "\n"))\nReplay: SYNCD_CONVERGENCE_SEEDS=\(workload.seed) "
                    + "SYNCD_CONVERGENCE_OPS=\(workload.opsPerDevice); full report (op log, trees, logs) printed above; "
                    + "state kept in \(rig.tmp.path)"))
            return
        }
    }

    /// Kills a seeded choice of daemon at seeded moments and starts it again at once (its
    /// start-up recovery and scan then catch up). Returns what it did, for the report.
    static func killRandomly(_ devices: [DaemonProcess], count: Int, seed: UInt64) async throws -> [String] {
        var rng = SplitMix64(seed: seed ^ 0x4B49_4C4C)
        var log: [String] = []
        for _ in 0..<count {
            try await Task.sleep(for: .milliseconds(rng.int(in: 150...1_200)))
            let which = rng.below(devices.count)
            devices[which].kill9()
            log.append("\(ConvergenceWorkload.devices[which])")
            try await Task.sleep(for: .milliseconds(rng.int(in: 0...300)))
            try await devices[which].start()
        }
        return log
    }

    enum QuiescenceProblem: CustomStringConvertible {
        case timedOut(String)
        case stuck(String)

        var description: String {
            switch self {
            case .timedOut(let why): "no quiescence within \(ConvergenceRun.quiescenceTimeout): \(why)"
            case .stuck(let why): "stuck: \(why)"
            }
        }
    }

    /// Waits until both devices are idle, have read the server's feed to its end,
    /// hold the server's tree, and stay so for a moment at the same revision.
    /// Being stuck (not quiescent, and nothing at all changing for `stallTimeout`:
    /// revision, statuses, trees) ends the wait early.
    static func quiesce(client: RemoteClient, devices: [DaemonProcess]) async
        -> (snapshot: Snapshot, problem: QuiescenceProblem?)
    {
        var snapshot = Snapshot()
        var unchangedSince: (snapshot: Snapshot, at: ContinuousClock.Instant)?
        do {
            try await eventually("quiescence", timeout: quiescenceTimeout, poll: .milliseconds(200)) {
                snapshot = try await Snapshot.take(client: client, devices: devices)
                guard let since = unchangedSince, since.snapshot.sameState(as: snapshot) else {
                    unchangedSince = (snapshot, ContinuousClock.now)
                    return false
                }
                let quietFor = ContinuousClock.now - since.at
                return snapshot.isQuiescent ? quietFor >= .milliseconds(600) : quietFor >= stallTimeout
            }
        } catch {
            return (snapshot, .timedOut(snapshot.whyNotQuiescent.joined(separator: "; ")))
        }
        if snapshot.isQuiescent { return (snapshot, nil) }
        return (snapshot, .stuck("for \(stallTimeout) nothing changed (rev \(snapshot.rev)), while " + snapshot.whyNotQuiescent.joined(separator: "; ")))
    }

    // MARK: Running the workload

    struct DeviceRun: Sendable {
        var log: [LoggedOp] = []
        /// path → the version this device last wrote there (see `VersionAudit`).
        var versions: [String: TrackedVersion] = [:]

        mutating func track(_ op: WorkloadOp, _ outcome: ApplyOutcome) {
            guard outcome.isApplied else { return }
            let device = ConvergenceWorkload.devices[op.device]
            func moveAll(from: String, to: String) {
                for (path, var version) in versions where path == from || TreeModel.isInside(path, from) {
                    versions[path] = nil
                    let target = to + path.dropFirst(from.count)
                    version.lineage.append(target)
                    versions[target] = version
                }
            }
            switch op.action {
            case .create(let p, _), .modify(let p, _), .append(let p, _), .truncate(let p, _):
                // Whatever this device wrote here before is superseded by its own write.
                guard case .wrote(let hash, _) = outcome else {
                    versions[p] = nil  // a failed write of our own spoiled what was there
                    return
                }
                versions[p] = TrackedVersion(device: device, opIndex: op.index, contentHash: hash, lineage: [p])
            case .rename(let p, let q): moveAll(from: p, to: q)
            case .moveDirectory(let d, let e): moveAll(from: d, to: e)
            case .delete(let p): versions[p] = nil
            case .removeTree(let d): versions = versions.filter { !TreeModel.isInside($0.key, d) }
            case .mkdir, .rmdir: break
            }
        }
    }

    struct LoggedOp: Sendable {
        var op: WorkloadOp
        var at: Duration
        var outcome: ApplyOutcome
    }

    static func runDevice(ops: [WorkloadOp], root: String, started: ContinuousClock.Instant) async throws -> DeviceRun {
        var run = DeviceRun()
        let applier = WorkloadApplier(root: root)
        for op in ops {
            if op.pauseBeforeMs > 0 { try await Task.sleep(for: .milliseconds(op.pauseBeforeMs)) }
            let outcome = applier.apply(op.action)
            run.log.append(LoggedOp(op: op, at: ContinuousClock.now - started, outcome: outcome))
            run.track(op, outcome)
        }
        return run
    }

    // MARK: Checking

    struct AuditResult {
        var found: [(version: TrackedVersion, where: String)] = []
        var lost: [(version: TrackedVersion, elsewhere: String)] = []

        var foundSummary: String {
            let kinds = found.map { f in
                f.where.hasPrefix("at ") ? "at path" : f.where.hasPrefix("conflict copy") ? "conflict copy" : "history"
            }
            return Dictionary(grouping: kinds, by: { $0 }).map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")
        }
    }

    /// Locates every tracked version; server history is fetched only for what the tree does not show.
    static func audit(runs: [DeviceRun], tree: [String: TreeItem], client: RemoteClient, rig: TwoDevices) async throws
        -> AuditResult
    {
        let versions = runs.flatMap { $0.versions.values }.sorted { ($0.device, $0.opIndex) < ($1.device, $1.opIndex) }
        let known = try await client.allRevisions(folder: "docs").map(\.path)
        let conflictPaths = Array(Set(known.filter { $0.contains(VersionAudit.conflictMarker) }))
        var history: [String: Set<String>] = [:]
        func fetch(_ paths: some Sequence<String>) throws {
            for p in paths where history[p] == nil { history[p] = try serverHistory(rig, path: p) }
        }
        var result = AuditResult()
        for version in versions {
            if let found = VersionAudit.locate(version, tree: tree, history: history, conflictPaths: conflictPaths) {
                result.found.append((version, found))
                continue
            }
            try fetch(version.lineage)
            try fetch(conflictPaths)
            if let found = VersionAudit.locate(version, tree: tree, history: history, conflictPaths: conflictPaths) {
                result.found.append((version, found))
                continue
            }
            // Lost. Say whether the server has it anywhere at all (a wrong path is a bug too),
            // and whether a device trashed it (a remote delete that won over a local write).
            try fetch(Set(known))
            var clues: [String] = []
            let elsewhere = history.filter { $0.value.contains(version.contentHash) }.keys.sorted()
            clues.append(elsewhere.isEmpty ? "the server never had it" : "the server has it only at \(elsewhere)")
            for (name, d) in zip(ConvergenceWorkload.devices, [rig.a, rig.b]) {
                let trash = (try? typedTree(d.dir + "/state/trash")) ?? [:]
                for (p, item) in trash.sorted(by: { $0.key < $1.key }) where item == .file(version.contentHash) {
                    clues.append("in \(name)'s trash at \(p)")
                }
            }
            result.lost.append((version, clues.joined(separator: "; ")))
        }
        return result
    }

    /// Content hashes of the live file versions the server recorded at `path` (`sync-server history`).
    static func serverHistory(_ rig: TwoDevices, path: String) throws -> Set<String> {
        let output: String
        do {
            output = try rig.server.admin(["history", path, "--folder", "docs"])
        } catch let error as TestFailure where error.description.contains("no versions of") {
            return []
        }
        // REV SIZE CONTENT_HASH DELETED DEVICE
        var hashes = Set<String>()
        for line in output.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t")
            if columns.count >= 4, columns[3] == "no" { hashes.insert(String(columns[2])) }
        }
        return hashes
    }

    // MARK: Reporting

    static func report(
        workload: ConvergenceWorkload, runs: [DeviceRun], snapshot: Snapshot, problems: [String], rig: TwoDevices
    ) -> String {
        var out = ["", "=== CONVERGENCE FAILURE: seed \(workload.seed), \(workload.opsPerDevice) ops per device ==="]
        out.append("replay: SYNCD_CONVERGENCE_SEEDS=\(workload.seed) SYNCD_CONVERGENCE_OPS=\(workload.opsPerDevice) swift test --skip-build --filter ConvergenceTests")
        out.append("--- problems:")
        out += problems.map { "  " + $0 }
        out.append("--- initial tree (made on alpha): dirs \(workload.initialDirectories)")
        for f in workload.initialFiles { out.append("  \(f.path)  \(contentHash(f.bytes).prefix(12)) (\(f.bytes.count) B)") }
        out.append("--- op log (ms since the workload started, device #op, action, outcome):")
        for entry in runs.flatMap(\.log).sorted(by: { $0.at < $1.at }) {
            let ms = String(format: "%7.1f", Double(entry.at.components.seconds) * 1000 + Double(entry.at.components.attoseconds) / 1e15)
            let name = ConvergenceWorkload.devices[entry.op.device].padding(toLength: 5, withPad: " ", startingAt: 0)
            out.append("  \(ms)  \(name) #\(entry.op.index)  \(entry.op.action)  → \(entry.outcome)")
        }
        out.append("--- final versions each device owns (device #op hash lineage):")
        for run in runs {
            for v in run.versions.values.sorted(by: { $0.opIndex < $1.opIndex }) {
                out.append("  \(v.device) #\(v.opIndex) \(v.contentHash.prefix(12)) \(v.lineage)")
            }
        }
        out.append("--- server tree (rev \(snapshot.rev)):")
        for (p, item) in snapshot.server.sorted(by: { $0.key < $1.key }) { out.append("  \(p)  \(item)") }
        out.append("--- differences (alpha / beta / server):")
        let paths = Set(snapshot.server.keys).union(snapshot.trees[0].keys).union(snapshot.trees[1].keys).sorted()
        for p in paths {
            let a = snapshot.trees[0][p], b = snapshot.trees[1][p], s = snapshot.server[p]
            guard a != s || b != s else { continue }
            func show(_ item: TreeItem?) -> String { item?.description ?? "-" }
            out.append("  \(p)\n      alpha: \(show(a))   beta: \(show(b))   server: \(show(s))")
        }
        out.append("--- status:")
        for (name, status) in zip(ConvergenceWorkload.devices, snapshot.statuses) {
            out.append("  \(name): " + (status.map { "\($0.state), pending up \($0.pendingUploads) down \($0.pendingDownloads), cursor \($0.remoteCursor), conflicts \($0.conflicts), errors \($0.errors.map { "\($0.path): \($0.message)" })" } ?? "no answer"))
        }
        for (name, d) in zip(ConvergenceWorkload.devices, [rig.a, rig.b]) {
            out.append("--- \(name) journal (path|state|dirty|attempts|last_error), via sqlite3 if installed:")
            out.append(journalDump(d.dir + "/state/index.sqlite"))
        }
        for (name, d) in zip(ConvergenceWorkload.devices, [rig.a, rig.b]) {
            out.append("--- \(name) syncd log tail:")
            out.append(String(d.log.suffix(3000)))
        }
        out.append("--- sync-server log tail:")
        out.append(String(rig.server.log.suffix(1500)))
        out.append("--- state kept in \(rig.tmp.path)")
        out.append("=== END seed \(workload.seed) ===")
        return out.joined(separator: "\n")
    }
}

/// The daemon's journal rows, read with the sqlite3 CLI (diagnostics only; the
/// index has no public listing of them).
func journalDump(_ database: String) -> String {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else { return "  (no /usr/bin/sqlite3)" }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    p.arguments = ["-readonly", database, "SELECT path, state, dirty, attempts, last_error FROM journal ORDER BY path"]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    do { try p.run() } catch { return "  (sqlite3: \(error))" }
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return text.isEmpty ? "  (empty)" : text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
}

/// The three trees and both statuses at one moment.
struct Snapshot {
    var server: [String: TreeItem] = [:]
    var trees: [[String: TreeItem]] = [[:], [:]]
    var statuses: [FolderStatus?] = [nil, nil]
    var rev: Int64 = -1

    static func take(client: RemoteClient, devices: [DaemonProcess]) async throws -> Snapshot {
        var s = Snapshot()
        for (i, d) in devices.enumerated() { s.statuses[i] = try await d.status() }
        s.rev = try await client.changes(folder: "docs", since: 1 << 50, limit: 1).cursor
        s.server = try await client.tree(folder: "docs").mapValues { entry in
            switch entry.kind {
            case .file: .file(entry.contentHash)
            case .directory: .directory
            case .symlink: .symlink(entry.contentHash)
            }
        }
        for (i, d) in devices.enumerated() { s.trees[i] = try typedTree(d.folderPath) }
        return s
    }

    var whyNotQuiescent: [String] {
        var why: [String] = []
        for (name, status) in zip(ConvergenceWorkload.devices, statuses) {
            guard let st = status else {
                why.append("\(name): no status")
                continue
            }
            if st.state != .idle { why.append("\(name) is \(st.state.rawValue)") }
            if st.pendingUploads + st.pendingDownloads > 0 || !st.transferring.isEmpty {
                why.append("\(name) has \(st.pendingUploads) uploads, \(st.pendingDownloads) downloads pending")
            }
            if st.remoteCursor != rev { why.append("\(name) is at cursor \(st.remoteCursor), server at \(rev)") }
        }
        for (name, tree) in zip(ConvergenceWorkload.devices, trees) where tree != server {
            let differing = Set(tree.keys).union(server.keys).filter { tree[$0] != server[$0] }.sorted()
            why.append("\(name)'s tree differs from the server's at \(differing.count) paths: \(differing.prefix(8))")
        }
        return why
    }

    var isQuiescent: Bool { rev >= 0 && whyNotQuiescent.isEmpty }

    /// Nothing observable differs (revision, statuses, all three trees).
    func sameState(as other: Snapshot) -> Bool {
        rev == other.rev && statuses == other.statuses && server == other.server && trees == other.trees
    }

    /// Both folders equal the server's tree and have read its feed to the end.
    var treesConverged: Bool {
        rev >= 0 && trees.allSatisfy { $0 == server } && statuses.allSatisfy { $0?.remoteCursor == rev }
    }

    var errors: [String] {
        zip(ConvergenceWorkload.devices, statuses).flatMap { name, st in
            (st?.errors ?? []).map { "\(name) \($0.path): \($0.message)" }
        }
    }
}

/// path → what is there, for everything under `root` (staging files skipped, symlinks not followed).
func typedTree(_ root: String) throws -> [String: TreeItem] {
    var out: [String: TreeItem] = [:]
    let fm = FileManager.default
    guard let walker = fm.enumerator(atPath: root) else { throw TestFailure("cannot walk \(root)") }
    while let path = walker.nextObject() as? String {
        if (path as NSString).lastPathComponent.hasPrefix(".syncd-tmp-") { continue }
        let full = root + "/" + path
        var st = stat()
        guard lstat(full, &st) == 0 else { throw TestFailure("lstat \(path): errno \(errno)") }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: out[path] = .directory
        case S_IFLNK: out[path] = .symlink(Hashing.sha256Hex(Array(try fm.destinationOfSymbolicLink(atPath: full).utf8)))
        default: out[path] = .file(try FileHashCache.shared.hash(full, st))
        }
    }
    return out
}

/// What applying one operation did.
enum ApplyOutcome: Sendable, CustomStringConvertible {
    /// A write: the content hash and size of the file right after it.
    case wrote(contentHash: String, size: Int)
    /// Any other operation, carried out (with a note if only in part).
    case done(note: String?)
    /// Its precondition did not hold in the real folder (sync changed it): not an error.
    case skipped(String)

    var isApplied: Bool { if case .skipped = self { false } else { true } }

    var description: String {
        switch self {
        case .wrote(let hash, let size): "wrote \(hash.prefix(12)) (\(size) B)"
        case .done(let note): note.map { "done, \($0)" } ?? "done"
        case .skipped(let why): "skipped: \(why)"
        }
    }
}

/// Carries operations out on a real folder with plain system calls, checking
/// each precondition on the folder as it is now.
struct WorkloadApplier {
    let root: String

    func full(_ path: String) -> String { root + "/" + path }

    func apply(_ action: WorkloadAction) -> ApplyOutcome {
        switch action {
        case .create(let p, let bytes): return write(p, flags: O_CREAT | O_EXCL, bytes)
        case .modify(let p, let bytes): return write(p, flags: O_TRUNC, bytes)
        case .append(let p, let bytes): return write(p, flags: O_APPEND, bytes)
        case .truncate(let p, let percent):
            let fd = open(full(p), O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { return .skipped(Self.error("open")) }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return .skipped("not a regular file") }
            guard st.st_size > 0 else { return .skipped("already empty") }
            guard ftruncate(fd, st.st_size * off_t(percent) / 100) == 0 else { return .skipped(Self.error("ftruncate")) }
            return readBack(fd)
        case .rename(let p, let q):
            guard kind(p) == S_IFREG else { return .skipped("source is not a file") }
            guard kind(q) == nil else { return .skipped("target exists") }
            guard Glibc.rename(full(p), full(q)) == 0 else { return .skipped(Self.error("rename")) }
            return .done(note: nil)
        case .moveDirectory(let d, let e):
            guard kind(d) == S_IFDIR else { return .skipped("source is not a directory") }
            guard kind(e) == nil else { return .skipped("target exists") }
            guard Glibc.rename(full(d), full(e)) == 0 else { return .skipped(Self.error("rename")) }
            return .done(note: nil)
        case .delete(let p):
            guard kind(p) == S_IFREG else { return .skipped("not a file") }
            guard unlink(full(p)) == 0 else { return .skipped(Self.error("unlink")) }
            return .done(note: nil)
        case .removeTree(let d):
            guard kind(d) == S_IFDIR else { return .skipped("not a directory") }
            do {
                try FileManager.default.removeItem(atPath: full(d))
            } catch {
                // Sync put something in meanwhile: part of the tree went. Counts as done.
                return .done(note: "in part: \(error)")
            }
            return .done(note: nil)
        case .mkdir(let d):
            guard Glibc.mkdir(full(d), 0o755) == 0 else { return .skipped(Self.error("mkdir")) }
            return .done(note: nil)
        case .rmdir(let d):
            guard Glibc.rmdir(full(d)) == 0 else { return .skipped(Self.error("rmdir")) }
            return .done(note: nil)
        }
    }

    private func kind(_ path: String) -> mode_t? {
        var st = stat()
        guard lstat(full(path), &st) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    /// Opens (never following a link), writes `bytes` in one go, and reads the
    /// file back through the same descriptor: what this device wrote, even if
    /// sync renames something else onto the path right after.
    private func write(_ path: String, flags: Int32, _ bytes: [UInt8]) -> ApplyOutcome {
        let fd = open(full(path), O_RDWR | O_NOFOLLOW | O_CLOEXEC | flags, 0o644)
        guard fd >= 0 else { return .skipped(Self.error("open")) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return .skipped("not a regular file") }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            // Not expected (disk full?); the file may be cut short, so this is no skip.
            guard n > 0 else { return .done(note: "write failed: \(Self.error("write"))") }
            done += n
        }
        return readBack(fd)
    }

    private func readBack(_ fd: Int32) -> ApplyOutcome {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return .done(note: "read back failed: \(Self.error("pread"))") }
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return .wrote(contentHash: contentHash(bytes), size: bytes.count)
    }

    private static func error(_ call: String) -> String { "\(call): \(String(cString: strerror(errno)))" }
}

extension Duration {
    fileprivate var rounded: String {
        String(format: "%.1f s", Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }
}
