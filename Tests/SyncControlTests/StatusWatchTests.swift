import Foundation
import Testing

@testable import SyncControl

/// `syncctl status --watch`: what a person sees, and when it is written at all.
@Suite struct StatusWatchTests {
    typealias T = StatusWatch.Terminal

    static func folder(
        _ state: FolderState = .syncing, up: Int = 0, down: Int = 0, _ transferring: [Transfer] = [],
        errors: [PathErrorStatus] = [], rev: Int64 = 7
    ) -> FolderStatus {
        FolderStatus(
            id: "docs", path: "/home/ann/Docs", state: state, pendingUploads: up, pendingDownloads: down,
            transferring: transferring, conflicts: 0, errors: errors, lastSyncedAt: nil, remoteCursor: rev, watchedDirectories: 1)
    }

    static func report(_ folders: FolderStatus..., uptime: Double = 75) -> StatusReport {
        StatusReport(daemon: .init(version: "0.1.0", pid: 42, uptimeS: uptime), folders: folders)
    }

    static func up(_ path: String, _ done: Int64, _ total: Int64) -> Transfer {
        Transfer(path: path, direction: "upload", bytesDone: done, bytesTotal: total)
    }

    /// The text of a terminal update, escape codes taken out.
    static func shown(_ update: String) -> [String] {
        let last = update.components(separatedBy: T.home).last ?? update
        return last.replacingOccurrences(of: T.clearLine, with: "").replacingOccurrences(of: T.clearToEnd, with: "")
            .components(separatedBy: "\n")
    }

    @Test func aTerminalFrameRedrawsInPlaceWithSpeedEtaAndBars() throws {
        var watch = StatusWatch(output: .terminal(width: nil, height: nil))
        let first = try #require(try watch.update(Self.report(Self.folder(up: 3, [Self.up("big.raw", 0, 8 << 20)])), at: .zero))
        #expect(first.hasPrefix(T.clearScreen + T.home) && first.hasSuffix(T.clearToEnd))
        let next = try #require(
            try watch.update(
                Self.report(Self.folder(up: 3, [Self.up("big.raw", 2 << 20, 8 << 20), Self.up("small.txt", 100, 100)])),
                at: .seconds(1)))
        #expect(next.hasPrefix(T.home) && !next.contains(T.clearScreen), "only the first frame clears the screen")
        let lines = Self.shown(next)
        #expect(lines.contains("docs  syncing  rev 7  /home/ann/Docs"), "\(lines)")
        #expect(lines.contains("  ↑ 3 pending, 2 in flight 2.0 MiB of 8.0 MiB (25%) 2.0 MiB/s ETA 3s   ↓ 0 pending"), "\(lines)")
        #expect(lines.contains("    ↑ [#####...............]  25%  2.0 MiB / 8.0 MiB  big.raw"), "\(lines)")
        #expect(lines.contains("    ↑ [####################] 100%  100 B / 100 B  small.txt"), "\(lines)")
    }

    /// Calm when idle: the same facts again (the uptime moved on) write nothing.
    @Test func nothingIsWrittenWhenNothingChanged() throws {
        for output in [StatusWatch.Output.terminal(width: 80, height: 24), .plain, .json] {
            var watch = StatusWatch(output: output)
            #expect(try watch.update(Self.report(Self.folder(.idle), uptime: 1), at: .zero) != nil)
            for i in 1...10 {
                #expect(try watch.update(Self.report(Self.folder(.idle), uptime: 1 + Double(i) / 2), at: .milliseconds(500 * i)) == nil, "\(output)")
            }
            #expect(try watch.update(Self.report(Self.folder(.syncing, up: 1)), at: .seconds(6)) != nil, "\(output)")
        }
    }

    @Test func plainLinesHaveNoEscapeCodesOneLinePerChange() throws {
        var watch = StatusWatch(output: .plain)
        let error = PathErrorStatus(path: "a.txt", message: "the disk is full", retryAt: "2026-11-26T01:00:00Z", code: "disk_full")
        let updates = [
            try watch.update(Self.report(Self.folder(.syncing, up: 2)), at: .zero),
            try watch.update(Self.report(Self.folder(.syncing, up: 2)), at: .milliseconds(500)),
            try watch.update(Self.report(Self.folder(.error, up: 1, errors: [error])), at: .seconds(1)),
            try watch.update(Self.report(Self.folder(.idle, rev: 9)), at: .seconds(2)),
        ]
        #expect(updates[0] == "docs: syncing  ↑ 2 pending  ↓ 0 pending  rev 7\n")
        #expect(updates[1] == nil)
        #expect(updates[2] == "docs: error  ↑ 1 pending  ↓ 0 pending  rev 7  1 error\ndocs: ! a.txt: the disk is full (retry at 2026-11-26T01:00:00Z)\n")
        #expect(updates[3] == "docs: idle  ↑ 0 pending  ↓ 0 pending  rev 9\n")
        #expect(!updates.compactMap { $0 }.joined().contains("\u{1B}"))
    }

    /// NDJSON: one `status --json` object per line, each a whole status that reads back.
    @Test func jsonIsOneStatusObjectPerLine() throws {
        var watch = StatusWatch(output: .json)
        let report = Self.report(Self.folder(.syncing, up: 1, [Self.up("a/b.txt", 1, 2)]))
        let line = try #require(try watch.update(report, at: .zero))
        #expect(line.hasSuffix("\n") && line.dropLast().split(separator: "\n").count == 1)
        #expect(try JSONDecoder().decode(StatusReport.self, from: Data(line.utf8)) == report)
        #expect(line.contains(#""pending_uploads":1"#) && line.contains(#""bytes_done":1"#))
    }

    /// A narrow terminal: lines are cut, never wrapped; a short one: the frame is cut.
    @Test func theFrameFitsTheTerminal() throws {
        let errors = (0..<9).map { PathErrorStatus(path: "f\($0).txt", message: String(repeating: "x", count: 200), retryAt: nil) }
        var watch = StatusWatch(output: .terminal(width: 40, height: 8))
        let lines = Self.shown(try #require(try watch.update(Self.report(Self.folder(.error, errors: errors)), at: .zero)))
        #expect(lines.count == 7, "\(lines)")
        #expect(lines.allSatisfy { $0.count <= 40 }, "\(lines)")
        var tall = StatusWatch(output: .terminal(width: nil, height: nil))
        let all = Self.shown(try #require(try tall.update(Self.report(Self.folder(.error, errors: errors)), at: .zero)))
        #expect(all.contains("  … 4 more errors (see --json)"), "\(all)")
    }

    /// Speed shows while data moves; an idle folder shows none (and is written once).
    @Test func idleAfterTransfersHasNoSpeed() throws {
        var watch = StatusWatch(output: .plain)
        _ = try watch.update(Self.report(Self.folder(up: 1, [Self.up("a", 0, 4 << 20)])), at: .zero)
        let moving = try #require(try watch.update(Self.report(Self.folder(up: 1, [Self.up("a", 4 << 20, 4 << 20)])), at: .seconds(1)))
        #expect(moving.contains("4.0 MiB/s"), "\(moving)")
        #expect(try watch.update(Self.report(Self.folder(.idle)), at: .seconds(2)) == "docs: idle  ↑ 0 pending  ↓ 0 pending  rev 7\n")
        for i in 3...8 { #expect(try watch.update(Self.report(Self.folder(.idle)), at: .seconds(Int64(i))) == nil) }
    }
}
