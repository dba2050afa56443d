import Foundation
import Logging
import SyncClient
import SyncControl
import SyncCore

/// `syncctl restore`: commits an older version of a path as its newest revision (and
/// brings back deleted parent directories with it). The change feed then delivers it here
/// and to every other device, like any remote change; the version it replaces stays in
/// the server's history. Which version is the pure `RestoreChoice`.
struct RemoteRestore: Sendable {
    let folder: String
    let remote: RemoteClient
    let restores: RestoresUnderWay
    let logger: Logger

    func restore(path: String, rev: Int64?) async throws(RestoreChoice.Refusal) -> RestoreReply {
        let history = try await fetchHistory(path)
        let version: WireEntry, current: WireEntry
        switch try RestoreChoice.choose(path: path, history: history, rev: rev).get() {
        case .alreadyCurrent(let held, let now):
            return RestoreReply(folder: folder, path: path, restoredRev: held.rev, newRev: now.rev, unchanged: true)
        case .restore(let chosen, let over):
            (version, current) = (chosen, over)
        }
        var changes = [RestoreChoice.change(restoring: version, over: current)]
        var parent = (path as NSString).deletingLastPathComponent
        while !parent.isEmpty {
            let versions = try await fetchHistory(parent)
            if let newest = versions.first, newest.deleted,
                let directory = versions.first(where: { !$0.deleted && $0.kind == .directory })
            {
                changes.insert(RestoreChoice.change(restoring: directory, over: newest), at: 0)
            }
            parent = (parent as NSString).deletingLastPathComponent
        }
        let response: CommitResponse
        let paths = changes.map(\.path)
        restores.begin(paths)
        do {
            response = try await remote.commit(folder: folder, changes: changes)
        } catch {
            restores.committed(paths, revisions: [:])
            throw RestoreChoice.Refusal(message: "cannot restore \(path): \(error)")
        }
        restores.committed(
            paths, revisions: Dictionary(response.results.filter { $0.status == .ok }.map { ($0.path, $0.rev) }) { _, last in last })
        guard let result = response.results.first(where: { $0.path == path }), result.status == .ok else {
            throw RestoreChoice.Refusal(message: "\(path) changed on the server meanwhile; run the restore again")
        }
        logger.info(
            "restored", metadata: ["folder": "\(folder)", "path": "\(path)", "from_rev": "\(version.rev)", "rev": "\(result.rev)"])
        return RestoreReply(folder: folder, path: path, restoredRev: version.rev, newRev: result.rev)
    }

    private func fetchHistory(_ path: String) async throws(RestoreChoice.Refusal) -> [WireEntry] {
        do {
            return try await remote.history(folder: folder, path: path)
        } catch {
            throw RestoreChoice.Refusal(message: "cannot read the history of \(path): \(error)")
        }
    }
}
