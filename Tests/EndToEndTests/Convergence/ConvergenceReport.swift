import Foundation
import TestSupport

/// The failure report: everything needed to understand a seed without running it again.
extension ConvergenceRun {
    static func report(
        workload: ConvergenceWorkload, replay: String, runs: [DeviceRun], snapshot: Snapshot, problems: [String],
        rig: TwoDevices
    ) async -> String {
        var out = ["", "=== CONVERGENCE FAILURE: seed \(workload.seed), \(workload.opsPerDevice) ops per device ==="]
        out.append("replay: " + replay)
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
            out.append(await journalDump(d.dir + "/state/index.sqlite"))
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
func journalDump(_ database: String) async -> String {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else { return "  (no /usr/bin/sqlite3)" }
    let text: String
    do {
        let said = try await Child.capture(
            "/usr/bin/sqlite3", ["-readonly", database, "SELECT path, state, dirty, attempts, last_error FROM journal ORDER BY path"],
            timeout: .seconds(30))
        text = said.out + said.err
    } catch {
        return "  (sqlite3: \(error))"
    }
    return text.isEmpty ? "  (empty)" : text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
}
