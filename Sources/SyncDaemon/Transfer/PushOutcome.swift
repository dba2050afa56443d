/// How one push of a path ended, as told to everyone who waited for it.
public enum PushOutcome: Sendable, Equatable {
    /// The server now has this path at `rev`.
    case committed(rev: Int64)
    /// Nothing to send: the server already has exactly this.
    case unchanged
    /// The server has a different version the base did not know about.
    case conflict(remoteRev: Int64)
    /// Cannot be sent (validation, permission, unreadable file); shown in status.
    case failed(DaemonError)
}
