import Foundation
import Logging
import Synchronization

/// The process's log handler: one line per event on stderr, in `format`, at the level of
/// the shared `ReloadableLogLevel`; the time is left out under journald (`JOURNAL_STREAM`
/// set), which stamps lines itself. Each record also goes to `onRecord` (syncd keeps the
/// recent ones for `syncctl log`).
public struct ProcessLogHandler: LogHandler {
    public let label: String
    let level: ReloadableLogLevel
    let format: LogFormat
    let timestamp: Bool
    let onRecord: (@Sendable (LogRecord) -> Void)?
    public var metadata: Logger.Metadata = [:]

    static let stderr = Mutex(())

    public init(
        label: String, level: ReloadableLogLevel, format: LogFormat, timestamp: Bool,
        onRecord: (@Sendable (LogRecord) -> Void)? = nil
    ) {
        self.label = label
        self.level = level
        self.format = format
        self.timestamp = timestamp
        self.onRecord = onRecord
    }

    public var logLevel: Logger.Level {
        get { level.level }
        set { level.level = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }
        let record = LogRecord(
            time: Date(), level: event.level, label: label, message: event.message.description,
            metadata: merged.mapValues(LogLine.flatten), source: event.source)
        let line = (format == .json ? LogLine.json(record) : LogLine.text(record, timestamp: timestamp)) + "\n"
        Self.stderr.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
        onRecord?(record)
    }

    /// Whether stderr goes to journald (systemd sets `JOURNAL_STREAM` for a unit's output).
    public static func underJournald(_ environment: [String: String]) -> Bool {
        environment["JOURNAL_STREAM"].map { !$0.isEmpty } ?? false
    }
}
