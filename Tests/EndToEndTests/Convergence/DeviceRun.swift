import Foundation

/// Running one device's list of operations, and what it did.
extension ConvergenceRun {
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
}
