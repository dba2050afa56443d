import Foundation

/// A failure's story told in a few dozen lines: the paths where a tree differs, the
/// operations on them (or on a directory above them), and the log lines (daemons', server's)
/// that name them. A CI log keeps only its tail, and the full report (thousands of
/// lines) is printed long before it ends: `scripts/test.sh` prints every digest again
/// once a pass has failed.
extension ConvergenceRun {
    static let digestName = "digest.txt"

    static func digest(
        workload: ConvergenceWorkload, replay: String, runs: [DeviceRun], snapshot: Snapshot, problems: [String],
        logs: [(String, String)]
    ) -> String {
        let differing = Set(snapshot.server.keys).union(snapshot.trees[0].keys).union(snapshot.trees[1].keys)
            .filter { p in snapshot.trees[0][p] != snapshot.server[p] || snapshot.trees[1][p] != snapshot.server[p] }
            .sorted()
        var out = ["=== convergence digest: seed \(workload.seed); replay: \(replay) ==="]
        out += problems.flatMap { $0.split(separator: "\n").map { "  " + $0 } }
        for p in differing.prefix(3) {
            func show(_ item: TreeItem?) -> String { item?.description ?? "-" }
            out.append("--- \(p): alpha \(show(snapshot.trees[0][p])), beta \(show(snapshot.trees[1][p])), server \(show(snapshot.server[p]))")
            let names = Self.namesAround(p)
            let ops = runs.flatMap(\.log).sorted(by: { $0.at < $1.at }).filter { names.matches("\($0.op.action)") }
            out.append("  \(min(ops.count, 20)) of \(ops.count) operations naming it or a directory above it (the last):")
            for entry in ops.suffix(20) {
                let ms = Int(Double(entry.at.components.seconds) * 1000 + Double(entry.at.components.attoseconds) / 1e15)
                out.append("    \(ms) ms \(ConvergenceWorkload.devices[entry.op.device]) #\(entry.op.index) \(entry.op.action) → \(entry.outcome)")
            }
            for (name, log) in logs {
                let lines = log.split(separator: "\n").filter { names.matches(String($0)) }
                guard !lines.isEmpty else { continue }
                out.append("  \(name) log, last \(min(lines.count, 10)) of \(lines.count) lines naming them:")
                out += lines.suffix(10).map { "    " + $0.prefix(300) }
            }
        }
        if differing.count > 3 { out.append("(and \(differing.count - 3) more paths: see the full report)") }
        return out.joined(separator: "\n")
    }

    /// The path and the directories above it, each matched as a whole name: `d2` matches
    /// `path=d2/b.txt` and `mvdir "d2" -> x`, not `sub/d2`.
    static func namesAround(_ path: String) -> NamesAround {
        var names = [path]
        var parts = path.split(separator: "/").dropLast()
        while !parts.isEmpty {
            names.append(parts.joined(separator: "/"))
            parts = parts.dropLast()
        }
        return NamesAround(names: names)
    }

    struct NamesAround {
        let names: [String]

        /// Whether `line` names one of them, between a start (line start, space, `=`, a quote,
        /// a bracket) and an end (line end, space, `/`, a quote, a bracket, a comma, a colon).
        func matches(_ line: String) -> Bool {
            let bytes = Array(line.utf8)
            let starts: Set<UInt8> = [0x20, 0x3D, 0x22, 0x27, 0x28, 0x5B]  // space = " ' ( [
            let ends: Set<UInt8> = [0x20, 0x2F, 0x22, 0x27, 0x29, 0x5D, 0x2C, 0x3A]  // space / " ' ) ] , :
            for name in names {
                let target = Array(name.utf8)
                guard target.count <= bytes.count else { continue }
                for i in 0...(bytes.count - target.count) where bytes[i] == target[0] {
                    guard Array(bytes[i..<(i + target.count)]) == target else { continue }
                    let before = i == 0 || starts.contains(bytes[i - 1])
                    let after = i + target.count == bytes.count || ends.contains(bytes[i + target.count])
                    if before && after { return true }
                }
            }
            return false
        }
    }
}
