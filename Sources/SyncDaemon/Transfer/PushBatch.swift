import Foundation
import SyncClient
import SyncCore

/// How one op of a push batch ended: one value per path.
enum PathFate: Sendable, Equatable {
    /// Finished; everyone waiting is told this outcome.
    case done(PushOutcome)
    /// Changed while being read (or its root is not the pinned one): again shortly.
    case unstable
    /// A tombstone met a download landing at its path (`StagedPush.meetingDownloads`): again shortly.
    case landing
    /// The server could not be reached (or answered 5xx): again with backoff.
    case transient
    /// Cannot be sent (validation, an unreadable file): shown, and dropped until it changes;
    /// a failure of the moment (`DaemonError.isPassing`: out of file descriptors, an I/O
    /// error) is shown and tried again with the backoff.
    case failed(DaemonError)
    /// A delete that waits for `syncctl approve-deletes`.
    case held
    /// Not attempted (it waits for the moves of this batch): back to the journal, due now;
    /// `forgetMove`: pushed as a plain change next.
    case deferred(forgetMove: Bool)

    /// Which of two fates a path keeps when a batch gives it both (one op can send
    /// several changes): the one that leaves work to do, a failure first.
    fileprivate var weight: Int {
        switch self {
        case .failed: 5
        case .transient: 4
        case .unstable, .landing: 3
        case .held: 2
        case .deferred: 1
        case .done: 0
        }
    }
}

/// Everything one push batch decided, for the queue to record and announce.
struct PushBatchResult: Sendable {
    /// Each op's fate, by path.
    private(set) var fates: [String: PathFate] = [:]
    var update = IndexUpdate()
    /// Why the `.transient` paths could not be sent.
    var transientError: RemoteError?
    /// The server has a version our base did not know: the current entries, for the engine to plan against.
    var conflicts: [WireEntry] = []
    var bytesSent: Int64 = 0

    /// Gives `path` this fate, unless it already has one that leaves more to do.
    mutating func settle(_ path: String, _ fate: PathFate) {
        if let known = fates[path], known.weight > fate.weight { return }
        fates[path] = fate
    }

    /// Sets a finished path's outcome (replacing another outcome, never a fate with work left).
    mutating func finish(_ path: String, _ outcome: PushOutcome) { settle(path, .done(outcome)) }

    func outcome(of path: String) -> PushOutcome? {
        if case .done(let outcome) = fates[path] { return outcome }
        return nil
    }

    /// The paths with a fate matching `matches`.
    func paths(where matches: (PathFate) -> Bool) -> [String] {
        fates.filter { matches($0.value) }.map(\.key).sorted()
    }

    var finished: [String: PushOutcome] { fates.compactMapValues { if case .done(let o) = $0 { o } else { nil } } }

    /// An op deferred to run after this batch's moves that one of them did the work of
    /// after all (a committed move's source): done, unless it has another fate since.
    mutating func undefer(_ path: String) {
        if case .deferred(forgetMove: false) = fates[path] { fates[path] = .done(.unchanged) }
    }
}

extension PushBatchResult {
    /// Ops whose change another op sent (`follower → sender`) end as the sender did;
    /// one whose change nobody sends had nothing to do.
    mutating func inherit(_ followers: [String: String]) {
        for (follower, sender) in followers { settle(follower, fates[sender] ?? .done(.unchanged)) }
    }
}
