import Glibc
import SyncCore
import Testing

@testable import SyncDaemon

/// Which changes the express lane takes (pure; the lane itself is tested end to end in
/// EndToEndTests/ExpressLaneTests).
struct ExpressLaneChoiceTests {
    /// What may take the express lane: small files, directories, symlinks; not big files,
    /// deletes or what cannot be read.
    @Test func theLaneAdmitsOnlySmallThings() {
        func stat(_ kind: EntryKind, size: Int64) -> FileStat.Lookup {
            .found(FileStat(kind: kind, inode: 1, size: size, mtimeNs: 0, ctimeNs: 0, mode: 0o644))
        }
        #expect(ExpressLane.admits(stat(.file, size: 1)))
        #expect(ExpressLane.admits(stat(.file, size: ExpressLane.maxFileBytes)))
        #expect(!ExpressLane.admits(stat(.file, size: ExpressLane.maxFileBytes + 1)))
        #expect(ExpressLane.admits(stat(.directory, size: 0)))
        #expect(ExpressLane.admits(stat(.symlink, size: 0)))
        #expect(!ExpressLane.admits(.missing))
        #expect(!ExpressLane.admits(.unsupported))
        #expect(!ExpressLane.admits(.failed(errno: EACCES)))
    }

    /// The edits lane takes edits of synced paths only; the new-paths lane a few new paths
    /// per batch (a burst of new files must not fill it, nor hold up an edit); what is turned
    /// down is remembered.
    @Test func eachLaneTakesItsOwnKindAndFewNewPaths() {
        let small = FileStat.Lookup.found(FileStat(kind: .file, inode: 1, size: 10, mtimeNs: 0, ctimeNs: 0, mode: 0o644))
        let big = FileStat.Lookup.found(FileStat(kind: .file, inode: 2, size: 5 << 20, mtimeNs: 0, ctimeNs: 0, mode: 0o644))
        let candidates = ([("log.txt", true), ("big.iso", true)] + (0..<10).map { ("new\($0)", false) }).map { (path: $0.0, synced: $0.1) }
        var refused: Set<String> = []
        var looked: [String] = []
        let edits = ExpressLane.choose(candidates, lane: .edits, refused: &refused) { path in
            looked.append(path)
            return path == "big.iso" ? big : small
        }
        #expect(edits == ["log.txt"])
        #expect(refused == ["big.iso"])
        let new = ExpressLane.choose(candidates, lane: .newPaths, refused: &refused) { _ in small }
        #expect(new == (0..<ExpressLane.Lane.newPaths.batchLimit).map { "new\($0)" })
        #expect(ExpressLane.Lane.newPaths.batchLimit < ExpressLane.Lane.edits.batchLimit)
        // Turned down once, not looked at again during this bulk batch.
        looked = []
        _ = ExpressLane.choose([(path: "big.iso", synced: true)], lane: .edits, refused: &refused) { looked.append($0); return big }
        #expect(looked.isEmpty)
    }

    /// A new path goes in the express lane only where the server holds its parent as a
    /// directory and nothing above it is in flight: below a symlink being replaced by a
    /// directory, it would race that edit to the server.
    @Test func newPathsGoOnlyWhereTheirParentIsASyncedDirectory() {
        let candidates = ["top.txt", "dir/new.txt", "link/new.txt", "gone/new.txt", "fresh/new.txt", "busy/sub/new.txt"]
            .map { (path: $0, synced: false) }
        let parents: [String: BaseRecord] = [
            "dir": BaseRecord(path: "dir", kind: .directory, rev: 1, contentHash: "d", deleted: false),
            "link": BaseRecord(path: "link", kind: .symlink, rev: 2, contentHash: "l", deleted: false),
            "gone": BaseRecord(path: "gone", kind: .directory, rev: 3, contentHash: "g", deleted: true),
            "busy/sub": BaseRecord(path: "busy/sub", kind: .directory, rev: 4, contentHash: "b", deleted: false),
        ]
        let placeable = ExpressLane.placeable(candidates, parents: parents, running: ["busy"])
        #expect(placeable.map(\.path) == ["top.txt", "dir/new.txt"])
        #expect(ExpressLane.parentPath("a/b/c") == "a/b" && ExpressLane.parentPath("a") == "")
    }
}
