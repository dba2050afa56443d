import Foundation

/// One event of the daemon's log, as `syncctl log` shows it.
public struct LogEntry: Codable, Sendable, Equatable {
    /// Increasing, gap-free while the daemon runs: ask for those after the last one seen.
    public var seq: Int64
    public var time: Date
    public var level: String
    public var message: String
    public var metadata: [String: String]

    public init(seq: Int64, time: Date, level: String, message: String, metadata: [String: String]) {
        self.seq = seq
        self.time = time
        self.level = level
        self.message = message
        self.metadata = metadata
    }

    /// `2026-11-26 01:35:16  info     sent 3 changes to the server: …  folder=docs`, in UTC.
    public var line: String {
        let stamp = time.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon).dateTimeSeparator(.space))
        let details = metadata.keys.sorted().map { "\($0)=\(metadata[$0] ?? "")" }.joined(separator: " ")
        return "\(stamp)  \(level.padding(toLength: 8, withPad: " ", startingAt: 0)) \(message)" + (details.isEmpty ? "" : "  " + details)
    }
}

/// Answer of `log`: the events asked for, oldest first, and what was lost to the ring's size.
public struct LogReply: Codable, Sendable, Equatable {
    public var entries: [LogEntry]
    /// The `seq` of the newest event the daemon holds (0: none yet).
    public var last: Int64
    /// Events after the one asked for that the ring no longer holds.
    public var dropped: Int64
    public init(entries: [LogEntry], last: Int64, dropped: Int64) {
        self.entries = entries
        self.last = last
        self.dropped = dropped
    }
}
