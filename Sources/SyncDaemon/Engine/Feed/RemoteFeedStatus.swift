import Foundation

/// What the remote side of a folder is doing (see `RemoteFeed`).
struct RemoteFeedStatus: Sendable, Equatable {
    /// Why the change feed is not being followed right now.
    var feedError: FeedProblem?
    /// Remote entries being applied.
    var pendingDownloads = 0
    /// Remote entries kept for a retry (could not be applied yet).
    var retries = 0
    /// The last feed page said more changes are waiting: not idle yet.
    var catchingUp = false
}

/// Why the change feed is not being followed right now.
struct FeedProblem: Sendable, Equatable {
    var message: String
    var retryAt: Date
    /// The server refused this device the folder (403): an error until an admin grants
    /// it, not "offline"; asked again rarely.
    var denied = false
    /// What `denied` is shown as: `not_granted` (403), or `credential_rejected` (401: the
    /// device was revoked, or the server does not know it).
    var code: DaemonError.Code = .notGranted
}
