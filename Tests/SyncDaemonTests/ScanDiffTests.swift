import SyncCore
import Testing

@testable import SyncDaemon

/// What a full scan journals, from the tree on disk and the index alone.
struct ScanDiffTests {
    func stat(_ kind: EntryKind = .file, size: Int64 = 1, mtime: Int64 = 1) -> FileStat {
        FileStat(kind: kind, inode: 1, size: size, mtimeNs: mtime, ctimeNs: 1, mode: 0o644)
    }

    @Test func unchangedSyncedPathsAreSkippedTheRestAndTheGoneAreJournaled() {
        var baseline = ScanBaseline()
        baseline.add("same", synced: .init(stat: stat(), inSync: true))
        baseline.add("touched", synced: .init(stat: stat(mtime: 1), inSync: true))
        baseline.add("unsynced", synced: .init(stat: stat(), inSync: false))
        // Live bases without a local record come after those with one (as the index reads
        // them); the gone are journaled in path order all the same.
        baseline.add("gone-dir", liveBaseIsDirectory: true)
        baseline.add("same", liveBaseIsDirectory: false)
        baseline.add("gone", synced: .init(stat: stat(), inSync: true), liveBaseIsDirectory: false)
        baseline.add("ignored", liveBaseIsDirectory: false)
        #expect(baseline.known.count == 6 && baseline.liveBaseCount == 4)
        let items = [
            ScannedItem(path: "d", stat: stat(.directory)), ScannedItem(path: "same", stat: stat()),
            ScannedItem(path: "touched", stat: stat(mtime: 2)), ScannedItem(path: "unsynced", stat: stat()),
            ScannedItem(path: "new", stat: stat()),
        ]
        let diff = ScanDiff(
            items: items, baseline: baseline, nameProblems: [String](), accept: { _ in true },
            skips: { path, _ in path == "ignored" })
        #expect(diff.toPush == ["d", "touched", "unsynced", "new", "gone", "gone-dir"])
        #expect(diff.directories == 2, "the root and d")
    }

    @Test func refusedNamesAreNotJournaledAndProblemsOfNamesGoneAreDropped() {
        let baseline = ScanBaseline()
        let items = [ScannedItem(path: "cafe\u{301}", stat: stat()), ScannedItem(path: "taken", stat: stat())]
        let diff = ScanDiff(
            items: items, baseline: baseline, nameProblems: ["taken", "renamed-since"],
            accept: { $0 != "cafe\u{301}" && $0 != "taken" }, skips: { _, _ in false })
        #expect(diff.toPush == [])
        #expect(diff.namesGone == ["renamed-since"])
    }
}
