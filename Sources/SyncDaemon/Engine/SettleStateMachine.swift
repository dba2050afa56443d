import Foundation

/// When a local change is journaled: the decisions of the engine's event handling,
/// without I/O or clocks. Events come in with the time they were seen; what to do comes
/// out as actions, which `FolderEngine` performs (journal, start or stop a timer, which
/// calls back into the machine when it fires).
///
/// - A file being written is journaled once it has been quiet for `settle`, and at least
///   every `longestSettle` while it keeps changing (a consistent snapshot of a log that
///   never stops growing still goes up).
/// - A close after writing, or a rename into place, journals at once.
/// - Deletes are gathered while they keep coming (`deleteGather` of quiet, at most
///   `deleteGatherLongest`), then journaled together, so the delete-wave guard judges an
///   `rm -r` whole. A path written again since its delete is left to its own settle.
struct SettleStateMachine {
    static let longestSettle: TimeInterval = 5
    static let deleteGather: TimeInterval = 0.25
    static let deleteGatherLongest: TimeInterval = 2

    enum Action: Equatable, Sendable {
        /// Journal these paths now.
        case journal([String])
        /// (Re)start the path's quiet timer; it calls `quiet(_:)` when it fires. The path is
        /// open for writing from `since` (the uploader leaves it to the writer meanwhile).
        case startQuietTimer(String, after: TimeInterval, since: Date)
        /// Stop the path's quiet timer, if any; the path is no longer open for writing.
        case stopQuietTimer(String)
        /// (Re)start the delete-gathering timer; it calls `deletesGathered()` when it fires.
        case startDeleteTimer(after: TimeInterval)
    }

    /// Quiet time a written file needs before it is journaled.
    let settle: TimeInterval
    /// Paths being written, with when each was first seen changing.
    private(set) var writing: [String: Date] = [:]
    /// Deletes gathered so far, and when the first came.
    private(set) var deletes: [String] = []
    private var deletesStarted: Date?

    /// Changes seen but not journaled yet (settling writes, gathered deletes): pending work,
    /// so the folder is not `idle` while a timer will still journal something.
    var unjournaled: Int { writing.count + deletes.count }

    init(settle: TimeInterval) {
        self.settle = settle
    }

    /// The path was modified, created or had its attributes changed (a writer may still be at it).
    /// (The timer first: the journal write is awaited, and the old timer must not fire
    /// into that gap.)
    mutating func written(_ path: String, at now: Date) -> [Action] {
        let first = writing[path] ?? now
        var actions: [Action] = [.startQuietTimer(path, after: settle, since: first)]
        if now.timeIntervalSince(first) >= Self.longestSettle {
            writing[path] = now
            actions.append(.journal([path]))
        } else {
            writing[path] = first
        }
        return actions
    }

    /// The path's quiet timer fired. (Its open-for-writing mark ends in any case.)
    mutating func quiet(_ path: String) -> [Action] {
        guard writing.removeValue(forKey: path) != nil else { return [.stopQuietTimer(path)] }
        return [.stopQuietTimer(path), .journal([path])]
    }

    /// The writer closed the path, it was renamed into place, or a directory appeared
    /// there: the caller journals (or scans) it now; any wait for quiet ends.
    mutating func done(_ path: String) -> [Action] {
        writing[path] = nil
        return [.stopQuietTimer(path)]
    }

    /// The path was deleted or moved away.
    mutating func gone(_ path: String, at now: Date) -> [Action] {
        writing[path] = nil
        let started = deletesStarted ?? now
        deletesStarted = started
        deletes.append(path)
        let wait = min(Self.deleteGather, max(0, Self.deleteGatherLongest - now.timeIntervalSince(started)))
        return [.stopQuietTimer(path), .startDeleteTimer(after: wait)]
    }

    /// The delete-gathering timer fired: the gathered deletes are journaled, except paths
    /// written again since (unlink and create, as `git checkout` does): their close or
    /// quiet journals them; read now they could commit a half-written state.
    mutating func deletesGathered() -> [Action] {
        let paths = deletes.filter { writing[$0] == nil }
        deletes.removeAll()
        deletesStarted = nil
        return paths.isEmpty ? [] : [.journal(paths)]
    }
}
