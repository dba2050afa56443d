import Foundation
import Synchronization

/// Decides which directories get a watch (ignored directories are not
/// watched at all). Called on the watcher thread; the owner may replace the
/// decision at any time (e.g. when `.syncignore` changes).
public final class WatchFilter: Sendable {
    private let decide: Mutex<@Sendable (String) -> Bool>

    /// `decide` gets an absolute directory path below the root.
    public init(_ decide: @escaping @Sendable (String) -> Bool = { _ in true }) {
        self.decide = Mutex(decide)
    }

    public func update(_ decide: @escaping @Sendable (String) -> Bool) {
        self.decide.withLock { $0 = decide }
    }

    func shouldWatch(_ directory: String) -> Bool {
        decide.withLock { $0 }(directory)
    }
}
