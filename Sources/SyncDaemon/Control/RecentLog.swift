import Foundation
import ServiceSupport
import Synchronization
import SyncControl

/// The daemon's recent log events (the last `capacity`), for `syncctl log`: every record the
/// log handler writes at the level in force also lands here.
public final class RecentLog: Sendable {
    public let capacity: Int
    private let state: Mutex<State>

    private struct State {
        var entries: [LogEntry] = []
        var start = 0
        var nextSeq: Int64 = 1
    }

    public init(capacity: Int = 2000) {
        self.capacity = capacity
        state = Mutex(State())
    }

    public func append(_ record: LogRecord) {
        state.withLock { state in
            let entry = LogEntry(
                seq: state.nextSeq, time: record.time, level: record.level.rawValue, message: record.message, metadata: record.metadata)
            state.nextSeq += 1
            if state.entries.count < capacity {
                state.entries.append(entry)
            } else {
                state.entries[state.start] = entry
                state.start = (state.start + 1) % capacity
            }
        }
    }

    /// Oldest first: those after `after` (at most `limit`, the oldest of them), or with no
    /// `after` the newest `limit`.
    public func entries(after: Int64?, limit: Int) -> LogReply {
        state.withLock { state in
            let ordered = Array(state.entries[state.start...] + state.entries[..<state.start])
            let last = state.nextSeq - 1
            guard let after else { return LogReply(entries: Array(ordered.suffix(limit)), last: last, dropped: 0) }
            let newer = ordered.filter { $0.seq > after }
            let dropped = max(0, (newer.first?.seq ?? last + 1) - after - 1)
            return LogReply(entries: Array(newer.prefix(limit)), last: last, dropped: dropped)
        }
    }
}
