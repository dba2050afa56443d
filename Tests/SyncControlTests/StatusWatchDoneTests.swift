import Foundation
import Testing

@testable import SyncControl

/// What the live view makes of a daemon that reports finished files (`done`, `recent`).
@Suite struct StatusWatchDoneTests {
    /// Many small files that start and finish between two samples still count: the speed is
    /// the change in finished bytes + bytes in flight.
    @Test func filesFinishedBetweenSamplesCountForTheSpeed() {
        var rate = TransferRate()
        rate.add([], done: TransferTotals(filesUploaded: 0, bytesUploaded: 0), at: .seconds(0))
        rate.add([], done: TransferTotals(filesUploaded: 500, bytesUploaded: 2 << 20), at: .seconds(1))
        #expect(rate.bytesPerSecond("upload") == Double(2 << 20))
        // A file in flight that then finishes is not counted twice.
        rate.add(
            [Transfer(path: "big", direction: "upload", bytesDone: 1 << 20, bytesTotal: 1 << 20)],
            done: TransferTotals(filesUploaded: 500, bytesUploaded: 2 << 20), at: .seconds(2))
        rate.add([], done: TransferTotals(filesUploaded: 501, bytesUploaded: 3 << 20), at: .seconds(3))
        #expect(rate.bytesPerSecond("upload") == Double(1 << 20))
        #expect(rate.bytesPerSecond("download") == 0)
    }

    @Test func theFrameShowsTotalsAndTheLastFiles() {
        var folder = StatusWatchTests.folder(.idle)
        folder.done = TransferTotals(filesUploaded: 12, bytesUploaded: 3 << 20, filesDownloaded: 1, bytesDownloaded: 1024)
        folder.recent = [
            CompletedTransfer(path: "notes/a.txt", direction: "upload", bytes: 12, at: "2026-11-26T01:39:53Z"),
            CompletedTransfer(path: "photo.raw", direction: "download", bytes: 1024, at: "2026-11-26T01:39:50Z"),
        ]
        let lines = StatusWatchView.frame(StatusWatchTests.report(folder), rates: [:], interval: .milliseconds(500), width: nil)
        #expect(lines.contains("  done since start: ↑ 12 files 3.0 MiB  ↓ 1 file 1.0 KiB"), "\(lines)")
        #expect(lines.contains("    ✓ ↑ notes/a.txt  12 B  01:39:53"), "\(lines)")
        #expect(lines.contains("    ✓ ↓ photo.raw  1.0 KiB  01:39:50"), "\(lines)")
    }

    /// An older daemon sends neither key: the status decodes and the frame has no such lines.
    @Test func anOlderDaemonsStatusStillDecodes() throws {
        let json = """
            {"id":"docs","path":"/d","state":"idle","pending_uploads":0,"pending_downloads":0,"transferring":[],
             "conflicts":0,"errors":[],"last_synced_at":null,"remote_cursor":3,"watched_directories":1}
            """
        let folder = try JSONDecoder().decode(FolderStatus.self, from: Data(json.utf8))
        #expect(folder.done == nil && folder.recent == nil)
        let lines = StatusWatchView.frame(StatusWatchTests.report(folder), rates: [:], interval: .seconds(1), width: nil)
        #expect(!lines.contains { $0.contains("done since start") })
    }
}
