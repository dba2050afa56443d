import Synchronization

/// The storage settings a reload can change while the server runs: retention and the
/// compaction threshold. The next round of `RetentionService` uses the new values.
final class RuntimeStorageSettings: Sendable {
    struct Values: Sendable, Equatable {
        var retention: Duration
        var compactBelow: Double
    }

    private let current: Mutex<Values>

    init(retention: Duration, compactBelow: Double) {
        current = Mutex(Values(retention: retention, compactBelow: compactBelow))
    }

    var values: Values { current.withLock { $0 } }

    func set(_ values: Values) {
        current.withLock { $0 = values }
    }
}
