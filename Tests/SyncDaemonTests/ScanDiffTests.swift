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
        baseline.local["same"] = .init(stat: stat(), inSync: true)
        baseline.local["touched"] = .init(stat: stat(mtime: 1), inSync: true)
        baseline.local["unsynced"] = .init(stat: stat(), inSync: false)
        baseline.liveBase = [("same", false), ("gone", false), ("gone-dir", true), ("ignored", false)]
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
