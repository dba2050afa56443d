import Synchronization

/// Paths a `syncctl restore` on this device is committing, or committed and not yet seen
/// come back. Their feed entries carry this device's id, but no push records them: they are
/// no echo of a push, even while an op of the same path waits in the journal. (The applier
/// took such an entry for its own push's echo and skipped it: the device that restored never
/// got the file back, while it said idle; seen once in a full end-to-end pass.)
final class RestoresUnderWay: Sendable {
    /// Path → the revision its restore committed; 0 while the commit is on its way (any
    /// revision of the path is then taken for it).
    private let marks = Mutex<[String: Int64]>([:])

    /// Right before the restore's commit is sent.
    func begin(_ paths: [String]) {
        marks.withLock { marks in for path in paths { marks[path] = 0 } }
    }

    /// The commit's answer: the revisions committed; the other paths are let go.
    func committed(_ paths: [String], revisions: [String: Int64]) {
        marks.withLock { marks in
            for path in paths {
                if let rev = revisions[path] { marks[path] = rev } else { marks[path] = nil }
            }
        }
    }

    /// Whether the entry at `path` with `rev` is a restore's (and no push's echo): the
    /// revision committed or a later one, or any while the commit is on its way.
    func covers(_ path: String, rev: Int64) -> Bool {
        marks.withLock { marks in marks[path].map { $0 == 0 || rev >= $0 } ?? false }
    }

    /// Entries applied (or found applied already): a mark goes once its committed revision,
    /// or a later one, is applied. Until then it stays, for an entry kept for a retry too.
    func settle(applied: [(path: String, rev: Int64)]) {
        marks.withLock { marks in
            guard !marks.isEmpty else { return }
            for (path, rev) in applied {
                if let mark = marks[path], mark != 0, rev >= mark { marks[path] = nil }
            }
        }
    }
}
