import Foundation

/// What `syncctl status --watch` shows, in words: a frame for a terminal, or one plain line
/// per folder. Pure: a report and the speeds in, lines out.
public enum StatusWatchView {
    /// Transfers in flight shown with a progress bar, largest first.
    public static let largestShown = 3
    /// Errors shown per folder in the live view (all of them are in `--json`).
    public static let errorsShown = 5
    /// The last finished files shown per folder.
    public static let recentShown = 3
    static let barWidth = 20

    /// The whole screen: a header, then per folder its state, pending work each way with
    /// speed and ETA, the largest transfers with a bar, and errors. `width`: the terminal's
    /// columns (lines are cut to fit, so the frame never wraps); nil leaves them whole.
    /// `keys`: the view takes keys (`StatusWatchKeys`), and says so; `notice`: what the last
    /// key did, shown under the header.
    public static func frame(
        _ report: StatusReport, rates: [String: TransferRate], interval: Duration, width: Int?, keys: Bool = false,
        notice: String? = nil
    ) -> [String] {
        var lines = [
            "syncd \(report.daemon.version)  pid \(report.daemon.pid)  every \(seconds(interval))  \(StatusWatchKeys.hint(keys: keys))"
        ]
        if let notice { lines.append(notice) }
        lines.append("")
        if report.folders.isEmpty { lines.append("no folders") }
        for folder in report.folders {
            let rate = rates[folder.id] ?? TransferRate()
            lines.append("\(folder.id)  \(folder.state.rawValue)  rev \(folder.remoteCursor)  \(folder.path)")
            lines.append("  " + sides(folder, rate).joined(separator: "   "))
            var facts = ["last synced \(folder.lastSyncedAt ?? "never")"]
            if folder.conflicts > 0 { facts.append("\(folder.conflicts) unresolved conflict\(folder.conflicts == 1 ? "" : "s")") }
            lines.append("  " + facts.joined(separator: "  "))
            if let done = folder.done, done.filesUploaded + done.filesDownloaded > 0 { lines.append("  " + totals(done)) }
            for t in largest(folder.transferring) { lines.append("    " + bar(t)) }
            for r in (folder.recent ?? []).prefix(recentShown) { lines.append("    " + finished(r)) }
            if folder.transferring.count > largestShown {
                lines.append("    … and \(folder.transferring.count - largestShown) smaller")
            }
            for e in folder.errors.prefix(errorsShown) { lines.append("  ! " + error(e)) }
            if folder.errors.count > errorsShown { lines.append("  … \(folder.errors.count - errorsShown) more errors (see --json)") }
            lines.append("")
        }
        guard let width, width > 0 else { return lines }
        return lines.map { $0.count > width ? String($0.prefix(max(width - 1, 0))) + "…" : $0 }
    }

    /// One line for a log or a pipe: `docs: syncing  ↑ 3 pending, … ↓ 0 pending  rev 12`.
    public static func line(_ folder: FolderStatus, rate: TransferRate) -> String {
        var parts = ["\(folder.id): \(folder.state.rawValue)"] + sides(folder, rate) + ["rev \(folder.remoteCursor)"]
        if folder.conflicts > 0 { parts.append("\(folder.conflicts) conflicts") }
        if !folder.errors.isEmpty { parts.append("\(folder.errors.count) error\(folder.errors.count == 1 ? "" : "s")") }
        return parts.joined(separator: "  ")
    }

    /// `↑ 24 pending, 3 in flight 12.0 MiB of 48.0 MiB (25%) 6.1 MiB/s ETA 6s`, and `↓ …`:
    /// speed and ETA while something is in flight (an idle folder shows no speed).
    static func sides(_ folder: FolderStatus, _ rate: TransferRate) -> [String] {
        [("upload", "↑", folder.pendingUploads), ("download", "↓", folder.pendingDownloads)].map { direction, arrow, pending in
            var text = "\(arrow) \(pending) pending"
            let each = folder.transferring.filter { $0.direction == direction }
            let speed = rate.bytesPerSecond(direction) ?? 0
            if !each.isEmpty {
                let done = each.reduce(Int64(0)) { $0 + $1.bytesDone }, total = each.reduce(Int64(0)) { $0 + $1.bytesTotal }
                text += ", \(each.count) in flight \(StatusText.bytes(done)) of \(StatusText.bytes(total))"
                text += " (\(StatusText.percent(done, total))%)"
                if speed >= 1 { text += " \(StatusText.bytes(Int64(speed)))/s" }
                if let left = rate.secondsLeft(direction, remaining: total - done) { text += " ETA \(StatusText.duration(left.rounded(.up)))" }
            }
            return text
        }
    }

    /// `done since start: ↑ 12 files 3.0 MiB  ↓ 4 files 1.0 KiB`
    static func totals(_ done: TransferTotals) -> String {
        "done since start: ↑ \(done.filesUploaded) file\(done.filesUploaded == 1 ? "" : "s") \(StatusText.bytes(done.bytesUploaded))"
            + "  ↓ \(done.filesDownloaded) file\(done.filesDownloaded == 1 ? "" : "s") \(StatusText.bytes(done.bytesDownloaded))"
    }

    /// `✓ ↑ notes/a.txt  12 B  01:39:53`
    static func finished(_ r: CompletedTransfer) -> String {
        let arrow = r.direction == "upload" ? "↑" : "↓"
        let clock = r.at.split(separator: "T").last.map { String($0.prefix(8)) } ?? r.at
        return "✓ \(arrow) \(r.path)  \(StatusText.bytes(r.bytes))  \(clock)"
    }

    static func largest(_ transfers: [Transfer]) -> [Transfer] {
        Array(transfers.sorted { ($0.bytesTotal, $1.path) > ($1.bytesTotal, $0.path) }.prefix(largestShown))
    }

    /// `↑ photos/big.raw  [#####...............]  25%  2.0 MiB / 8.0 MiB`
    static func bar(_ t: Transfer) -> String {
        let percent = StatusText.percent(t.bytesDone, t.bytesTotal)
        let filled = min(barWidth, percent * barWidth / 100)
        let arrow = t.direction == "upload" ? "↑" : "↓"
        let gauge = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        let percentText = String(repeating: " ", count: max(0, 3 - String(percent).count)) + "\(percent)%"
        return "\(arrow) [\(gauge)] \(percentText)  \(StatusText.bytes(t.bytesDone)) / \(StatusText.bytes(t.bytesTotal))  \(t.path)"
    }

    static func error(_ e: PathErrorStatus) -> String {
        let place = e.path.isEmpty ? "" : "\(e.path): "
        return place + e.message + (e.retryAt.map { " (retry at \($0))" } ?? "")
    }

    static func seconds(_ d: Duration) -> String {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : String(format: "%.1f s", Double(ms) / 1000)
    }
}
