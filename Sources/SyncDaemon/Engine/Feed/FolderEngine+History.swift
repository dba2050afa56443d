import Foundation
import SyncClient
import SyncControl

extension FolderEngine {
    /// `syncctl history PATH`: the server's versions of `path`, newest first, with when and
    /// by which device each was committed.
    func history(_ path: String) async throws -> HistoryReply {
        let answer = try await feed.remote.historyWithProvenance(folder: id, path: path)
        let provenance = Dictionary((answer.provenance ?? []).map { ($0.rev, $0) }, uniquingKeysWith: { first, _ in first })
        let versions = answer.versions.map { v in
            let about = provenance[v.rev]
            return HistoryReply.Version(
                rev: v.rev, committedAt: about.map { FolderStatusBuilder.iso(Date(timeIntervalSince1970: TimeInterval($0.committedAt))) },
                device: about?.deviceName ?? v.device, kind: v.kind.rawValue, size: v.size, deleted: v.deleted)
        }
        return HistoryReply(folder: id, path: path, versions: versions)
    }
}
