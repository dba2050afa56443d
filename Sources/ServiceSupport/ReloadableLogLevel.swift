import Logging
import Synchronization

/// The process's log level, changeable while it runs (a SIGHUP reload). Every logger made
/// by `bootstrap` reads it at each message, so a change applies at once everywhere.
public final class ReloadableLogLevel: Sendable {
    private let current: Mutex<Logger.Level>

    public init(_ level: Logger.Level) {
        current = Mutex(level)
    }

    public var level: Logger.Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Sets up swift-log with stderr handlers that follow this level.
    public func bootstrap() {
        LoggingSystem.bootstrap { label in
            FollowingLevelHandler(base: StreamLogHandler.standardError(label: label), level: self)
        }
    }
}

/// A log handler whose level is the shared `ReloadableLogLevel` (setting it on one logger
/// sets it for all).
struct FollowingLevelHandler<Base: LogHandler>: LogHandler {
    var base: Base
    let level: ReloadableLogLevel

    var logLevel: Logger.Level {
        get { level.level }
        set { level.level = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        base.log(event: event)
    }
}
