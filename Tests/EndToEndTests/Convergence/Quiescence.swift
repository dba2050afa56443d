import SyncClient
import SyncControl
import TestSupport

/// The end of a run: both devices quiet and in step with the server, or stuck.
extension ConvergenceRun {
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
