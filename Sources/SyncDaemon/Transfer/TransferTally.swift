import Foundation
import Synchronization
import SyncControl

/// What one folder finished moving since the daemon started, for the status (`done`,
/// `recent`): totals each way and the last few files. Counted where a file's upload is
/// committed and where a download is in place; safe to call from anywhere.
public final class TransferTally: Sendable {
    static let kept = 8
    private let state = Mutex((totals: TransferTotals(), recent: [CompletedTransfer]()))

    public init() {}

    func uploaded(path: String, bytes: Int64, at: Date = Date()) {
        record(path: path, direction: "upload", bytes: bytes, at: at)
    }

    func downloaded(path: String, bytes: Int64, at: Date = Date()) {
        record(path: path, direction: "download", bytes: bytes, at: at)
    }

    private func record(path: String, direction: String, bytes: Int64, at: Date) {
        let done = CompletedTransfer(path: path, direction: direction, bytes: bytes, at: FolderStatusBuilder.iso(at))
        state.withLock { state in
            if direction == "upload" {
                state.totals.filesUploaded += 1
                state.totals.bytesUploaded += bytes
            } else {
                state.totals.filesDownloaded += 1
                state.totals.bytesDownloaded += bytes
            }
            state.recent.insert(done, at: 0)
            if state.recent.count > Self.kept { state.recent.removeLast() }
        }
    }

    /// Totals and the last files, newest first.
    public var snapshot: (totals: TransferTotals, recent: [CompletedTransfer]) {
        state.withLock { ($0.totals, $0.recent) }
    }
}
