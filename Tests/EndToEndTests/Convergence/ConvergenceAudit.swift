import SyncClient
import TestSupport

/// The "no version is lost" check against the final tree and the server's history.
extension ConvergenceRun {
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
        // Renames and directory moves of both devices, in the order they were made.
        let moves = runs.flatMap(\.log).compactMap { logged -> (at: Duration, from: String, to: String)? in
            guard logged.outcome.isApplied else { return nil }
            switch logged.op.action {
            case .rename(let from, let to), .moveDirectory(let from, let to): return (logged.at, from, to)
            default: return nil
            }
        }.sorted { $0.at < $1.at }
        func written(_ version: TrackedVersion) -> Duration {
            let device = ConvergenceWorkload.devices.firstIndex(of: version.device) ?? 0
            return runs[device].log.first { $0.op.index == version.opIndex }?.at ?? .zero
        }
        func fetch(_ paths: some Sequence<String>) async throws {
            for p in paths where history[p] == nil { history[p] = try await serverHistory(rig, path: p) }
        }
        var result = AuditResult()
        for version in versions {
            if let found = VersionAudit.locate(version, tree: tree, history: history, conflictPaths: conflictPaths) {
                result.found.append((version, found))
                continue
            }
            try await fetch(version.lineage)
            try await fetch(conflictPaths)
            if let found = VersionAudit.locate(version, tree: tree, history: history, conflictPaths: conflictPaths) {
                result.found.append((version, found))
                continue
            }
            let after = written(version)
            let along = VersionAudit.movedAlong(version.lineage, moves: moves.filter { $0.at >= after }.map { ($0.from, $0.to) })
            try await fetch(along)
            if let path = along.first(where: { history[$0]?.contains(version.contentHash) == true }) {
                result.found.append((version, "history of \(path), moved along"))
                continue
            }
            // Lost. Say whether the server has it anywhere at all (a wrong path is a bug too),
            // and whether a device trashed it (a remote delete that won over a local write).
            try await fetch(Set(known))
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
    static func serverHistory(_ rig: TwoDevices, path: String) async throws -> Set<String> {
        let output: String
        do {
            output = try await rig.server.admin(["history", path, "--folder", "docs"])
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
}
