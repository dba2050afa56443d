import Foundation
import SyncCore

/// The human form of `syncctl status`: one row per folder, then per folder a summary of
/// its transfers (counts and bytes each way, and only the few largest in flight: a
/// 10,000-file sync is three lines, not 10,000) and its errors.
public enum StatusText {
    /// Transfers named one by one, largest first.
    public static let largestShown = 3

    public static func render(_ report: StatusReport) -> String {
        var lines = ["syncd \(report.daemon.version)  pid \(report.daemon.pid)  up \(duration(report.daemon.uptimeS))"]
        let header = ["FOLDER", "STATE", "UP", "DOWN", "CONFLICTS", "LAST SYNCED", "PATH"]
        var rows = [header]
        for f in report.folders {
            rows.append([
                f.id, f.state.rawValue, "\(f.pendingUploads)", "\(f.pendingDownloads)", "\(f.conflicts)",
                f.lastSyncedAt ?? "never", f.path,
            ])
        }
        let widths = header.indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
        for row in rows {
            lines.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
        for f in report.folders {
            lines += transfers(f)
            for e in f.errors.prefix(20) {
                let where_ = e.path.isEmpty ? "" : "\(e.path): "
                let retry = e.retryAt.map { " (retry at \($0))" } ?? ""
                lines.append("  \(f.id): ! \(where_)\(e.message)\(retry)")
            }
            if f.errors.count > 20 { lines.append("  \(f.id): … \(f.errors.count - 20) more errors (see --json)") }
        }
        return lines.joined(separator: "\n")
    }

    /// `docs: ↑ 51 files, 1.2 MiB of 3.4 MiB (35%)  ↓ 2 files, …`, then the largest few.
    static func transfers(_ folder: FolderStatus) -> [String] {
        guard !folder.transferring.isEmpty else { return [] }
        let sides = [("upload", "↑"), ("download", "↓")].compactMap { direction, arrow -> String? in
            let each = folder.transferring.filter { $0.direction == direction }
            guard !each.isEmpty else { return nil }
            let done = each.reduce(Int64(0)) { $0 + $1.bytesDone }, total = each.reduce(Int64(0)) { $0 + $1.bytesTotal }
            let files = each.count == 1 ? "1 file" : "\(each.count) files"
            return "\(arrow) \(files), \(bytes(done)) of \(bytes(total)) (\(percent(done, total))%)"
        }
        var lines = ["  \(folder.id): " + sides.joined(separator: "  ")]
        let largest = folder.transferring.sorted { ($0.bytesTotal, $1.path) > ($1.bytesTotal, $0.path) }.prefix(largestShown)
        for t in largest {
            let arrow = t.direction == "upload" ? "↑" : "↓"
            lines.append("    \(arrow) \(t.path)  \(bytes(t.bytesDone)) / \(bytes(t.bytesTotal)) (\(percent(t.bytesDone, t.bytesTotal))%)")
        }
        if folder.transferring.count > largestShown {
            lines.append("    … and \(folder.transferring.count - largestShown) smaller")
        }
        return lines
    }

    static func percent(_ done: Int64, _ total: Int64) -> Int {
        total > 0 ? Int(Double(done) * 100 / Double(total)) : 100
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(s % 60)s" }
        return "\(s / 3600)h\(s % 3600 / 60)m"
    }

    static func bytes(_ n: Int64) -> String { ByteCount.text(n) }
}
