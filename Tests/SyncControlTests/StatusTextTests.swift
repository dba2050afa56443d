import Testing

@testable import SyncControl

/// `syncctl status` in words: a summary of the transfers, not one line per file.
@Suite struct StatusTextTests {
    static func folder(_ transferring: [Transfer], state: FolderState = .syncing) -> FolderStatus {
        FolderStatus(
            id: "docs", path: "/home/ann/Docs", state: state, pendingUploads: transferring.count, pendingDownloads: 0,
            transferring: transferring, conflicts: 0, errors: [], lastSyncedAt: nil, remoteCursor: 7, watchedDirectories: 1)
    }

    static func report(_ folder: FolderStatus) -> StatusReport {
        StatusReport(daemon: .init(version: "0.1.0", pid: 42, uptimeS: 75), folders: [folder])
    }

    @Test func tenThousandTransfersAreAFewLines() {
        var many = (0..<10_000).map { Transfer(path: "notes/n\($0).txt", direction: "upload", bytesDone: 4096, bytesTotal: 4096) }
        many.append(Transfer(path: "photos/big.raw", direction: "upload", bytesDone: 1 << 20, bytesTotal: 8 << 20))
        many.append(Transfer(path: "video.mp4", direction: "download", bytesDone: 0, bytesTotal: 100 << 20))
        let text = StatusText.render(Self.report(Self.folder(many)))
        let lines = text.split(separator: "\n")
        #expect(lines.count < 12, "\(text)")
        #expect(text.contains("docs: ↑ 10001 files, 40.1 MiB of 47.1 MiB (85%)  ↓ 1 file, 0 B of 100.0 MiB (0%)"), "\(text)")
        #expect(lines.contains("    ↓ video.mp4  0 B / 100.0 MiB (0%)"))
        #expect(lines.contains("    ↑ photos/big.raw  1.0 MiB / 8.0 MiB (12%)"))
        #expect(lines.contains("    … and 9999 smaller"))
    }

    @Test func anIdleFolderHasNoTransferLines() {
        let text = StatusText.render(Self.report(Self.folder([], state: .idle)))
        #expect(text.split(separator: "\n").count == 3, "\(text)")
        #expect(text.contains("docs") && text.contains("idle"))
    }
}
