/// When a local change is journaled: the decisions of the engine's event handling,
/// without I/O or clocks. Events come in with the instant they were seen; what to do
/// comes out as actions, which `FolderEngine` performs: journal paths, mark a path open
/// or closed for writing, and `wake(at:)`, a deadline its timer loop must be awake for
/// (it then calls `timersFired(at:)`). Built like swift-async-algorithms'
/// `…StateMachine`s: generic over the instant, so tests make up their times.
///
/// - A file being written is journaled once it has been quiet for `settle`, and at least
///   every `longestSettle` while it keeps changing (a consistent snapshot of a log that
///   never stops growing still goes up).
/// - A close after writing, or a rename into place, journals at once.
/// - Deletes are gathered while they keep coming (`deleteGather` of quiet, at most
///   `deleteGatherLongest`), then journaled together, so the delete-wave guard judges an
///   `rm -r` whole. A path written again since its delete is left to its own settle.
struct SettleStateMachine<Instant: InstantProtocol> where Instant.Duration == Duration {
    enum Action: Equatable, Sendable {
        /// Journal these paths now.
        case journal([String])
        /// The path is open for writing (from the first time; the uploader leaves it to its
        /// writer meanwhile). Repeated while it stays open.
        case markOpen(String)
        /// The path is no longer open for writing.
        case markClosed(String)
        /// Something is due at this instant: be awake for `timersFired(at:)` by then.
        case wake(at: Instant)
    }

    private struct Writing {
        /// First seen changing (or last journaled while it keeps changing).
        var since: Instant
        /// When it has been quiet for `settle`.
        var quietAt: Instant
    }

    /// Quiet time a written file needs before it is journaled.
    let settle: Duration
    /// Paths being written.
    private var writing: [String: Writing] = [:]
    /// Deletes gathered so far, when the first came, and when they are journaled.
    private(set) var deletes: [String] = []
    private var deletesStarted: Instant?
    private var deletesDue: Instant?

    init(settle: Duration) {
        self.settle = settle
    }

    /// Changes seen but not journaled yet (settling writes, gathered deletes): pending work,
    /// so the folder is not `idle` while a timer will still journal something.
    var unjournaled: Int { writing.count + deletes.count }

    /// Paths waiting for their quiet time.
    var settling: Set<String> { Set(writing.keys) }

    /// The earliest instant something is due, if anything is.
    var nextDeadline: Instant? {
        let quiet = writing.values.lazy.map(\.quietAt).min()
        guard let deletesDue else { return quiet }
        return quiet.map { min($0, deletesDue) } ?? deletesDue
    }

    /// The path was modified, created or had its attributes changed (a writer may still be at it).
    mutating func written(_ path: String, at now: Instant) -> [Action] {
        let since = writing[path]?.since ?? now
        let quietAt = now.advanced(by: settle)
        var actions: [Action] = [.markOpen(path), .wake(at: quietAt)]
        if since.duration(to: now) >= SettleTimes.longestSettle {
            writing[path] = Writing(since: now, quietAt: quietAt)
            actions.append(.journal([path]))
        } else {
            writing[path] = Writing(since: since, quietAt: quietAt)
        }
        return actions
    }

    /// The writer closed the path, it was renamed into place, or a directory appeared
    /// there: the caller journals (or scans) it now; any wait for quiet ends.
    mutating func done(_ path: String) -> [Action] {
        writing[path] = nil
        return [.markClosed(path)]
    }

    /// The path was deleted or moved away.
    mutating func gone(_ path: String, at now: Instant) -> [Action] {
        writing[path] = nil
        let started = deletesStarted ?? now
        deletesStarted = started
        deletes.append(path)
        let left = SettleTimes.deleteGatherLongest - started.duration(to: now)
        let due = now.advanced(by: min(SettleTimes.deleteGather, max(.zero, left)))
        deletesDue = due
        return [.markClosed(path), .wake(at: due)]
    }

    /// What is due at `now`, in the order it fell due: each write that has been quiet
    /// long enough, and the gathered deletes.
    mutating func timersFired(at now: Instant) -> [Action] {
        let quiet = writing.filter { $0.value.quietAt <= now }
            .sorted { ($0.value.quietAt, $0.key) < ($1.value.quietAt, $1.key) }
        var actions: [Action] = []
        var wave = deletesDue.map { $0 <= now } ?? false
        for (path, write) in quiet {
            if wave, let deletesDue, deletesDue < write.quietAt {
                actions += deletesGathered()
                wave = false
            }
            writing[path] = nil
            actions += [.markClosed(path), .journal([path])]
        }
        if wave { actions += deletesGathered() }
        return actions
    }

    /// The gathered deletes are journaled, except paths written again since (unlink and
    /// create, as `git checkout` does): their close or quiet journals them; read now they
    /// could commit a half-written state.
    private mutating func deletesGathered() -> [Action] {
        let paths = deletes.filter { writing[$0] == nil }
        deletes.removeAll()
        deletesStarted = nil
        deletesDue = nil
        return paths.isEmpty ? [] : [.journal(paths)]
    }
}

/// The settle machine's fixed times (the configured `settle` aside).
enum SettleTimes {
    /// A file that keeps changing is journaled at least this often; the uploader leaves a
    /// file open for writing alone for this long (`OpenWrites`).
    static let longestSettle: Duration = .seconds(5)
    /// Deletes are gathered while they come less than this apart…
    static let deleteGather: Duration = .milliseconds(250)
    /// …for at most this long.
    static let deleteGatherLongest: Duration = .seconds(2)
}
