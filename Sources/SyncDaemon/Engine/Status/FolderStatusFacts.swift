import Foundation
import SyncClient
import SyncControl

/// Where a folder's engine is in its life.
enum FolderPhase: Sendable, Equatable { case starting, scanning, running }

/// Everything besides `FolderProblems` a folder's state is decided from, gathered by the
/// engine from its parts (the journal, the queue, the feed).
struct FolderStatusFacts: Sendable {
    var phase: FolderPhase = .running
    var paused = false
    /// Local changes not pushed yet: journal rows, changes on their way to the journal,
    /// writes settling and deletes being gathered.
    var pending = 0
    /// The queue is pushing a batch.
    var busy = false
    /// Local and remote deletes waiting for approval.
    var held = 0
    /// The last push could not reach the server (or its disk is full).
    var offline: RemoteError?
    var remote = RemoteFeedStatus()
}
