import Foundation

/// `syncctl status --watch` between two polls: fed each status report with the time it was
/// read, it says what to write, or nil when nothing a person would see changed (calm when
/// idle: no redraw, no line). Pure; the caller polls, writes and handles signals.
public struct StatusWatch: Sendable {
    public enum Output: Sendable, Equatable {
        /// Redraw in place: cursor home, the frame, clear to the end of the screen. The
        /// terminal's size (nil: unknown): lines are cut to `width`, the frame to `height`
        /// less one line (a frame that scrolled the screen could not be redrawn in place).
        case terminal(width: Int?, height: Int?)
        /// One line per folder that changed (no escape codes): for a pipe or a log.
        case plain
        /// One `status --json` object per line (NDJSON), each time the status changes.
        case json
    }

    /// Changes when the terminal is resized (the next update redraws).
    public var output: Output
    /// On a terminal: the view takes keys (`StatusWatchKeys`), and its header says which.
    public var keys = false
    /// What the last key did (`retrying now: docs (1 path)`), shown under the header; nil: none.
    public var notice: String?
    public let interval: Duration
    private var rates: [String: TransferRate] = [:]
    private var lastFrame: [String]?
    private var lastLines: [String: String] = [:]
    private var lastErrors: [String: [PathErrorStatus]] = [:]
    private var lastReport: StatusReport?

    public init(output: Output, interval: Duration = .milliseconds(500)) {
        self.output = output
        self.interval = interval
    }

    /// The next terminal update draws the whole screen again, changed or not (the view was
    /// stopped and brought back: the shell wrote over it meanwhile).
    public mutating func redrawNext() {
        lastFrame = nil
    }

    /// What to write for the report read at `time` (nil: nothing changed).
    public mutating func update(_ report: StatusReport, at time: Duration) throws -> String? {
        for folder in report.folders { rates[folder.id, default: TransferRate()].add(folder.transferring, done: folder.done, at: time) }
        rates = rates.filter { id, _ in report.folders.contains { $0.id == id } }
        switch output {
        case .terminal(let width, let height):
            var frame = StatusWatchView.frame(report, rates: rates, interval: interval, width: width, keys: keys, notice: notice)
            if let height, height > 1, frame.count > height - 1 { frame = Array(frame.prefix(height - 1)) }
            defer { lastFrame = frame }
            guard frame != lastFrame else { return nil }
            let first = lastFrame == nil ? Terminal.clearScreen : ""
            return first + Terminal.home + frame.map { $0 + Terminal.clearLine }.joined(separator: "\n") + Terminal.clearToEnd
        case .plain:
            return plainUpdate(report)
        case .json:
            var unchanged = lastReport
            unchanged?.daemon.uptimeS = report.daemon.uptimeS
            lastReport = report
            guard unchanged != report else { return nil }
            return try Self.json(report) + "\n"
        }
    }

    /// A line per folder whose line changed, a line per new error, a line per folder gone.
    private mutating func plainUpdate(_ report: StatusReport) -> String? {
        var out: [String] = []
        for folder in report.folders {
            let line = StatusWatchView.line(folder, rate: rates[folder.id] ?? TransferRate())
            if lastLines[folder.id] != line { out.append(line) }
            lastLines[folder.id] = line
            let before = lastErrors[folder.id] ?? []
            for e in folder.errors where !before.contains(e) { out.append("\(folder.id): ! " + StatusWatchView.error(e)) }
            lastErrors[folder.id] = folder.errors
        }
        for id in lastLines.keys.sorted() where !report.folders.contains(where: { $0.id == id }) {
            out.append("\(id): no longer synced")
            lastLines[id] = nil
            lastErrors[id] = nil
        }
        return out.isEmpty ? nil : out.map { $0 + "\n" }.joined()
    }

    /// The `status --json` form: one object, keys sorted, no newline inside.
    public static func json(_ report: StatusReport) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }

    /// The escape sequences the live view uses (ANSI / VT100).
    public enum Terminal {
        public static let home = "\u{1B}[H"
        public static let clearToEnd = "\u{1B}[J"
        public static let clearLine = "\u{1B}[K"
        public static let clearScreen = "\u{1B}[2J"
        public static let hideCursor = "\u{1B}[?25l"
        public static let showCursor = "\u{1B}[?25h"
    }
}
