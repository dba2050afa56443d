import Foundation
import Synchronization

/// Decides which directories get a watch (ignored directories are not
/// watched at all). Called on the watcher thread; the owner may replace the
/// decision at any time (e.g. when `.syncignore` changes).
public final class WatchFilter: Sendable {
    /// The closure lives in a struct: a bare function type as the Mutex's
    /// generic value is reabstracted on every `withLock` and written back,
    /// growing a chain of thunks by two per call (found by the watch-10k
    /// benchmark: 10,000 checks took a second, and deep enough chains
    /// overflow the stack).
    private struct Decision: Sendable {
        let decide: @Sendable (String) -> Bool
    }

    private let decision: Mutex<Decision>
    /// Events of files whose names start with these bytes are dropped on the watcher
    /// thread (the owner's own temporary files); empty: none are.
    let skippedFilePrefix: [UInt8]

    /// `decide` gets an absolute directory path below the root. Nothing is delivered for
    /// files whose names start with `skippingFilesNamed` (a move out of such a name arrives
    /// as a plain arrival, a move into one as a departure).
    public init(_ decide: @escaping @Sendable (String) -> Bool = { _ in true }, skippingFilesNamed prefix: String = "") {
        decision = Mutex(Decision(decide: decide))
        skippedFilePrefix = Array(prefix.utf8)
    }

    /// Whether the file name at `name` (NUL-terminated) is one whose events are dropped.
    func skipsFile(named name: UnsafePointer<CChar>) -> Bool {
        guard !skippedFilePrefix.isEmpty else { return false }
        for (i, byte) in skippedFilePrefix.enumerated() where UInt8(bitPattern: name[i]) != byte { return false }
        return true
    }

    public func update(_ decide: @escaping @Sendable (String) -> Bool) {
        decision.withLock { $0 = Decision(decide: decide) }
    }

    func shouldWatch(_ directory: String) -> Bool {
        decision.withLock { $0 }.decide(directory)
    }
}
