import Foundation
import SyncCore
import Testing
import TestSupport

/// One seed's run: rig, initial tree, concurrent workload, quiescence, checks, report.
struct ConvergenceRun {
    let workload: ConvergenceWorkload
    /// SIGKILLs of a daemon (seeded: which one, when) while the workload runs.
    var kills = 0
    static let quiescenceTimeout: Duration = .seconds(90)
    static let stallTimeout: Duration = .seconds(15)

    /// How to run this seed again (the kill -9 variant reads its own variable).
    var replay: String {
        (kills > 0 ? "SYNCD_KILL_SEEDS" : "SYNCD_CONVERGENCE_SEEDS")
            + "=\(workload.seed) SYNCD_CONVERGENCE_OPS=\(workload.opsPerDevice) swift test --skip-build --filter "
            + (kills > 0 ? "randomWorkloadConvergesUnderKills" : "'randomWorkloadConverges\\('")
    }

    func run() async throws {
        let rig = try await TwoDevices.start(
            "converge-\(workload.seed)",
            // The delete-wave guard would (rightly) hold this workload's deletes for approval.
            extraFolderConfig: "max_delete_fraction = 1.0",
            // Each path's story is in the daemons' logs, kept with a failure's state.
            logLevel: "trace")
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
                    let journal = await journalDump(d.dir + "/state/index.sqlite")
                    problems.append("  \(name)'s journal when stuck (path|state|dirty|attempts|last_error):\n" + journal)
                }
                // A restart turns journal rows stuck as running back into pending, and its
                // full scan catches what the watcher missed: see whether that heals it, and
                // what else is wrong.
                for d in devices { await d.stop() }
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
            let report = await Self.report(
                workload: workload, replay: replay, runs: runs, snapshot: snapshot, problems: problems, rig: rig)
            print(report)
            // Also beside the state: a CI log may keep only its tail (scripts/test.sh prints
            // the digests again at the end of a failed pass).
            let reportPath = rig.tmp.path + "/report.txt"
            let digest = Self.digest(
                workload: workload, replay: replay, runs: runs, snapshot: snapshot, problems: problems,
                logs: [("alpha", rig.a.log), ("beta", rig.b.log), ("server", rig.server.log)])
            do {
                try writeFile(reportPath, report)
                try writeFile(rig.tmp.path + "/" + Self.digestName, digest + "\n")
            } catch {
                print("convergence: cannot write \(reportPath) or its digest: \(error)")
            }
            Issue.record(Comment(rawValue:
                "\(summary)\n\(problems.joined(separator: "\n"))\nReplay: \(replay); full report (op log, trees, logs) "
                    + "printed above and in \(reportPath); state kept in \(rig.tmp.path)\n\(digest)"))
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
            await devices[which].kill9()
            log.append("\(ConvergenceWorkload.devices[which])")
            try await Task.sleep(for: .milliseconds(rng.int(in: 0...300)))
            try await devices[which].start()
        }
        return log
    }
}

extension Duration {
    fileprivate var rounded: String {
        String(format: "%.1f s", Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }
}
