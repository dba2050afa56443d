import Foundation
import SyncControl

/// The human form of `syncctl status`.
enum StatusTable {
    static func render(_ report: StatusReport) -> String {
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
            for t in f.transferring {
                let pct = t.bytesTotal > 0 ? Int(Double(t.bytesDone) * 100 / Double(t.bytesTotal)) : 100
                let arrow = t.direction == "upload" ? "↑" : "↓"
                lines.append("  \(f.id): \(arrow) \(t.path)  \(bytes(t.bytesDone)) / \(bytes(t.bytesTotal)) (\(pct)%)")
            }
            for e in f.errors.prefix(20) {
                let where_ = e.path.isEmpty ? "" : "\(e.path): "
                let retry = e.retryAt.map { " (retry at \($0))" } ?? ""
                lines.append("  \(f.id): ! \(where_)\(e.message)\(retry)")
            }
            if f.errors.count > 20 { lines.append("  \(f.id): … \(f.errors.count - 20) more errors (see --json)") }
        }
        return lines.joined(separator: "\n")
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(s % 60)s" }
        return "\(s / 3600)h\(s % 3600 / 60)m"
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }
}
