import SyncCore
import Testing

@testable import SyncDaemon

/// Remote moves arrive as a tombstone plus a new entry with the same content.
struct MovePairingTests {
    static func entry(_ path: String, _ hash: String, deleted: Bool = false, kind: EntryKind = .file) -> WireEntry {
        WireEntry(
            path: path, kind: kind, size: 1, mtimeNs: 0, mode: 0o644, chunks: [], contentHash: deleted ? "" : hash,
            deleted: deleted, rev: 1)
    }

    @Test func aTombstoneAndANewEntryWithItsContentPair() {
        let known = ["old/a.txt": "A", "old/b.txt": "B", "gone.txt": "G"]
        let pairs = MovePairing.pairs(
            live: [Self.entry("new/a.txt", "A"), Self.entry("new/b.txt", "B"), Self.entry("fresh.txt", "F")],
            tombstones: ["old/a.txt", "old/b.txt", "gone.txt"].map { Self.entry($0, "", deleted: true) },
            removedHash: { known[$0] })
        #expect(pairs == ["new/a.txt": "old/a.txt", "new/b.txt": "old/b.txt"])
    }

    @Test func eachOldPathPairsOnceAndDirectoriesNever() {
        let pairs = MovePairing.pairs(
            live: [Self.entry("x1", "S"), Self.entry("x2", "S"), Self.entry("dir2", "D", kind: .directory)],
            tombstones: [Self.entry("s", "", deleted: true), Self.entry("dir", "", deleted: true, kind: .directory)],
            removedHash: { ["s": "S", "dir": "D"][$0] })
        #expect(pairs == ["x1": "s"])
    }

    @Test func unknownContentAndSamePathDoNotPair() {
        // The device never had the old file (no hash known): no pair.
        #expect(MovePairing.pairs(
            live: [Self.entry("n", "H")], tombstones: [Self.entry("o", "", deleted: true)], removedHash: { _ in nil }).isEmpty)
        // A live entry at a path the page also deletes is not a move's destination.
        #expect(MovePairing.pairs(
            live: [Self.entry("same", "H")], tombstones: [Self.entry("same", "", deleted: true)], removedHash: { _ in "H" }).isEmpty)
    }

    /// A server-side move names its old path: it pairs with it even when the
    /// tombstone is in another page, and that old path is not paired again by content.
    @Test func aServerMoveNamesItsOldPath() {
        var moved = Self.entry("new/a.txt", "A")
        moved.movedFrom = "old/a.txt"
        let pairs = MovePairing.pairs(
            live: [moved, Self.entry("copy/a.txt", "A")],
            tombstones: [Self.entry("old/a.txt", "", deleted: true)],
            removedHash: { $0 == "old/a.txt" ? "A" : nil })
        #expect(pairs == ["new/a.txt": "old/a.txt"])
        #expect(MovePairing.pairs(live: [moved], tombstones: [], removedHash: { _ in nil }) == ["new/a.txt": "old/a.txt"])
    }
}
