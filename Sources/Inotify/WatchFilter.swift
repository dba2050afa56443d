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

    /// `decide` gets an absolute directory path below the root.
    public init(_ decide: @escaping @Sendable (String) -> Bool = { _ in true }) {
        decision = Mutex(Decision(decide: decide))
    }

    public func update(_ decide: @escaping @Sendable (String) -> Bool) {
        decision.withLock { $0 = Decision(decide: decide) }
    }

    func shouldWatch(_ directory: String) -> Bool {
        decision.withLock { $0 }.decide(directory)
    }
}
