import SyncCore
import Testing

@testable import SyncDaemon

/// A remote directory move is renamed whole only over exactly what was synced here.
struct DirectoryMovePlanTests {
    static let dirHash = "D"

    /// `old` holding a.txt, sub and sub/b.txt, synced at revs 1-3 and untouched here; the page
    /// moving them to `new` (revs 10-12) and leaving departures (13-15).
    struct Case {
        var arrival = WireEntry(
            path: "new", kind: .directory, size: 0, mtimeNs: 0, mode: 0o755, chunks: [], contentHash: DirectoryMovePlanTests.dirHash,
            deleted: false, rev: 10, movedFrom: "old")
        var entries: [WireEntry] = []
        var here: DirectoryMovePlan.Here

        init() {
            let specs: [(String, EntryKind, String)] = [("old", .directory, dirHash), ("old/a.txt", .file, "A"), ("old/sub", .directory, dirHash), ("old/sub/b.txt", .file, "B")]
            var bases: [BaseRecord] = [], locals: [LocalRecord] = [], found: [ScannedItem] = []
            for (i, (path, kind, hash)) in specs.enumerated() {
                let mode: UInt32 = kind == .directory ? 0o755 : 0o644
                bases.append(BaseRecord(path: path, kind: kind, rev: Int64(i + 1), contentHash: hash, deleted: false, mode: mode))
                let stat = FileStat(kind: kind, inode: UInt64(100 + i), size: 4, mtimeNs: 7, ctimeNs: 8, mode: mode | (kind == .directory ? 0o040000 : 0o100000))
                if kind == .file {
                    locals.append(LocalRecord(
                        path: path, kind: kind, inode: stat.inode, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs,
                        mode: stat.mode, contentHash: hash, chunks: []))
                }
                if path != "old" { found.append(ScannedItem(path: path, stat: stat)) }
                let newPath = RelativePath.moved(path, from: "old", to: "new")
                entries.append(WireEntry(
                    path: newPath, kind: kind, size: 4, mtimeNs: 7, mode: mode, chunks: [], contentHash: hash, deleted: false,
                    rev: Int64(10 + i), movedFrom: path))
                entries.append(WireEntry(
                    path: path, kind: kind, size: 0, mtimeNs: 0, mode: mode, chunks: [], contentHash: "", deleted: true,
                    rev: Int64(16 - i), movedTo: newPath))
            }
            here = DirectoryMovePlan.Here(
                bases: bases, locals: locals, found: found, holdsSkipped: false,
                directory: FileStat(kind: .directory, inode: 100, size: 4, mtimeNs: 7, ctimeNs: 8, mode: 0o040755),
                scanWhole: true, newPathTaken: false)
        }

        var plan: Result<DirectoryMovePlan, DirectoryMovePlan.NotWhole> {
            DirectoryMovePlan.plan(arrival: arrival, entries: entries, here: here)
        }
        var isWhole: Bool { if case .success = plan { true } else { false } }
    }

    @Test func theSyncedDirectoryUntouchedIsRenamedWholeWithEveryEntryOfThePage() throws {
        let plan = try Case().plan.get()
        #expect(Set(plan.applied.map(\.path)) == ["new", "new/a.txt", "new/sub", "new/sub/b.txt", "old", "old/a.txt", "old/sub", "old/sub/b.txt"])
        #expect(plan.applied.count == 8)
    }

    @Test func aFileChangedHereSinceItWasSyncedGoesOneByOne() {
        var c = Case()
        c.here.found[0].stat.mtimeNs += 1
        #expect(!c.isWhole)
        c = Case()
        c.here.locals[0].contentHash = "A2"  // recorded as read since, not pushed yet
        #expect(!c.isWhole)
        c = Case()
        c.here.found[0].stat.mode = 0o100755  // chmod here: ctime changes too, but the mode alone says so
        c.here.locals[0].mode = 0o100755
        #expect(!c.isWhole)
    }

    @Test func somethingAddedOrMissingHereGoesOneByOne() {
        var c = Case()
        c.here.found.append(ScannedItem(path: "old/new.txt", stat: c.here.found[0].stat))
        #expect(!c.isWhole)
        c = Case()
        c.here.found.removeAll { $0.path == "old/sub/b.txt" }
        #expect(!c.isWhole)
        c = Case()
        c.here.scanWhole = false
        #expect(!c.isWhole)
        // Something this device skips (ignored, or its own state) would move along.
        c = Case()
        c.here.holdsSkipped = true
        #expect(!c.isWhole)
        c = Case()
        c.here.directory = nil
        #expect(!c.isWhole)
    }

    @Test func aPageThatDoesNotMoveEverythingSyncedHereGoesOneByOne() {
        // The page cut before the last arrival.
        var c = Case()
        c.entries.removeAll { $0.path == "new/sub/b.txt" }
        #expect(!c.isWhole)
        // An arrival of other content than synced here (edited on the other side first).
        c = Case()
        for i in c.entries.indices where c.entries[i].path == "new/a.txt" { c.entries[i].contentHash = "A2" }
        #expect(!c.isWhole)
        // Something else at the new path in the page, or something live at the old one.
        c = Case()
        c.entries.append(WireEntry(path: "new/extra.txt", kind: .file, size: 1, mtimeNs: 0, mode: 0o644, chunks: [], contentHash: "X", deleted: false, rev: 20))
        #expect(!c.isWhole)
        c = Case()
        c.entries.append(WireEntry(path: "old/again.txt", kind: .file, size: 1, mtimeNs: 0, mode: 0o644, chunks: [], contentHash: "X", deleted: false, rev: 20))
        #expect(!c.isWhole)
    }

    /// Paths are compared by their bytes, as the index and the disk hold them: a page whose
    /// paths are not in NFC (canonically equal, other bytes) goes one by one.
    @Test func pathsNotInNFCGoOneByOne() {
        var c = Case()
        c.arrival.path = "ne\u{301}w"
        for i in c.entries.indices where !c.entries[i].deleted {
            c.entries[i].path = RelativePath.moved(c.entries[i].path, from: "new", to: "ne\u{301}w")
        }
        #expect(!c.isWhole)
    }

    @Test func aTakenNewPathOrAMoveIntoItselfGoesOneByOne() {
        var c = Case()
        c.here.newPathTaken = true
        #expect(!c.isWhole)
        c = Case()
        c.arrival.path = "old/inner"
        #expect(!c.isWhole)
    }
}
