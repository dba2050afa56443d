import Foundation
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

    /// Sets up swift-log with `ProcessLogHandler`s that follow this level: lines on stderr
    /// in `format`, stamped unless journald reads them; each record also to `onRecord`.
    public func bootstrap(
        format: LogFormat = .text, environment: [String: String] = ProcessInfo.processInfo.environment,
        onRecord: (@Sendable (LogRecord) -> Void)? = nil
    ) {
        let timestamp = !ProcessLogHandler.underJournald(environment)
        LoggingSystem.bootstrap { label in
            ProcessLogHandler(label: label, level: self, format: format, timestamp: timestamp, onRecord: onRecord)
        }
    }
}
