import Foundation
import Logging

/// How log lines are written: `text` for people, `json` (one object per line) for log shippers.
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// One log event with everything a line needs, metadata flattened to text.
public struct LogRecord: Sendable, Equatable {
    public var time: Date
    public var level: Logger.Level
    public var label: String
    public var message: String
    public var metadata: [String: String]
    public var source: String

    public init(time: Date, level: Logger.Level, label: String, message: String, metadata: [String: String], source: String) {
        self.time = time
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
        self.source = source
    }
}

/// A record as one line (no newline). Pure.
public enum LogLine {
    /// `2026-11-26T01:35:16.123Z info syncd: message key=value key=value`; without the time
    /// when `timestamp` is false (journald stamps lines itself).
    public static func text(_ record: LogRecord, timestamp: Bool) -> String {
        var line = timestamp ? iso8601(record.time) + " " : ""
        line += "\(record.level) \(record.label): \(record.message)"
        for key in record.metadata.keys.sorted() { line += " \(key)=\(quoted(record.metadata[key] ?? ""))" }
        return line
    }

    /// `{"label":…,"level":…,"message":…,"metadata":{…},"source":…,"time":…}`, keys sorted.
    public static func json(_ record: LogRecord) -> String {
        let object: [String: Any] = [
            "time": iso8601(record.time), "level": record.level.rawValue, "label": record.label, "message": record.message,
            "source": record.source, "metadata": record.metadata,
        ]
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        } catch {
            // Strings only: not reached; say so rather than drop the line.
            return "{\"level\":\"error\",\"message\":\"log line not encodable: \(error)\"}"
        }
    }

    /// A metadata value as text: nested dictionaries and arrays in brackets.
    public static func flatten(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): return text
        case .stringConvertible(let value): return value.description
        case .array(let values): return "[" + values.map(flatten).joined(separator: ", ") + "]"
        case .dictionary(let values):
            return "[" + values.keys.sorted().map { "\($0): \(flatten(values[$0]!))" }.joined(separator: ", ") + "]"
        }
    }

    static func quoted(_ value: String) -> String {
        value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
            ? "\"" + value.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : value
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
