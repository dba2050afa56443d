import SyncCore
import Testing

@testable import SyncServerKit

/// The commit's decisions alone, without a database: what the plan asks to read, and what it
/// decides from what it is given.
@Suite("Commit plan")
struct CommitPlanTests {
    static func file(_ path: String, rev: Int64, deleted: Bool = false) -> WireEntry {
        WireEntry(path: path, kind: .file, size: 1, mtimeNs: 1, mode: 0o644, chunks: ["c"], contentHash: "h", deleted: deleted, rev: rev)
    }
    static func dir(_ path: String, rev: Int64) -> WireEntry {
        WireEntry(path: path, kind: .directory, size: 0, mtimeNs: 1, mode: 0o755, chunks: [], contentHash: "", deleted: false, rev: rev)
    }
    static func change(_ path: String, base: Int64, kind: EntryKind = .file, deleted: Bool = false, from: String? = nil, target: String? = nil)
        -> CommitChange
    {
        CommitChange(
            path: path, baseRev: base, kind: kind, size: kind == .file ? 1 : 0, mtimeNs: 2, mode: 0o644, chunks: kind == .file ? ["c"] : [],
            contentHash: "h", deleted: deleted, symlinkTarget: target, moveFrom: from)
    }

    @Test func readsNameEveryPathAndBothSidesOfEachMove() {
        let reads = CommitPlan.reads(of: [Self.change("a", base: 0), Self.change("d2", base: 3, kind: .directory, from: "d")])
        #expect(reads.paths == ["a", "d2", "d"])
        #expect(reads.subtrees == ["d", "d2"])
    }

    @Test func acceptedChangesTakeTheNextRevsAndConflictsNameTheCurrentEntry() {
        let base = CommitSnapshot(entries: ["a": Self.file("a", rev: 4), "gone": Self.file("gone", rev: 5, deleted: true)])
        let plan = CommitPlan(
            changes: [Self.change("a", base: 4), Self.change("a", base: 4), Self.change("gone", base: 0), Self.change("new", base: 0)],
            folderRev: 9, device: "dev", base: base)
        #expect(plan.results.map(\.status) == [.ok, .conflict, .ok, .ok])
        #expect(plan.results.map(\.rev) == [10, 10, 11, 12], "the second change of a sees the first one's rev")
        #expect(plan.results[1].current?.rev == 10)
        #expect(plan.rev == 12)
        #expect(plan.writes.map(\.path) == ["a", "gone", "new"])
        #expect(plan.writes.allSatisfy { $0.device == "dev" })
    }

    @Test func aDirectoryMoveTakesWhatThisCommitCreatedBelowItAndArrivesBeforeItDeparts() {
        let base = CommitSnapshot(
            entries: ["d": Self.dir("d", rev: 1)],
            below: ["d": [Self.file("d/old", rev: 2)], "e": []])
        let plan = CommitPlan(
            changes: [Self.change("d/new", base: 0), Self.change("e", base: 1, kind: .directory, from: "d")],
            folderRev: 2, device: "dev", base: base)
        #expect(plan.results.map(\.status) == [.ok, .ok])
        #expect(plan.results[1].rev == 4)
        #expect(plan.results[1].moved?.map(\.path) == ["d", "d/new", "d/old"])
        let writes = plan.writes.dropFirst().map { "\($0.rev) \($0.path) \($0.deleted ? "-" : "+")" }
        #expect(writes == ["4 e +", "5 e/new +", "6 e/old +", "7 d/old -", "8 d/new -", "9 d -"])
        #expect(plan.writes.last?.movedTo == "e")
        #expect(plan.writes[1].movedFrom == "d")
        #expect(plan.liveEntries(below: "d").isEmpty)
    }

    @Test func aMoveWaitsForAFreeDestinationButOneFreedEarlierInTheCommitWillDo() {
        let base = CommitSnapshot(
            entries: ["a": Self.file("a", rev: 1), "b": Self.file("b", rev: 2)], below: ["a": [], "b": []])
        let blocked = CommitPlan(changes: [Self.change("b", base: 1, from: "a")], folderRev: 2, device: "dev", base: base)
        #expect(blocked.results.first?.status == .conflict)
        #expect(blocked.results.first?.current?.path == "b")
        #expect(blocked.writes.isEmpty)
        let freed = CommitPlan(
            changes: [Self.change("b", base: 2, deleted: true), Self.change("b", base: 1, from: "a")], folderRev: 2, device: "dev", base: base)
        #expect(freed.results.map(\.status) == [.ok, .ok])
        #expect(freed.entry(at: "b")?.movedFrom == "a")
        #expect(freed.entry(at: "a")?.deleted == true)
    }

    @Test func aMoveOfAChangedSourceIsAConflict() {
        let base = CommitSnapshot(entries: ["a": Self.file("a", rev: 3)], below: ["a": [], "b": []])
        let plan = CommitPlan(changes: [Self.change("b", base: 1, from: "a")], folderRev: 3, device: "dev", base: base)
        #expect(plan.results.first?.status == .conflict)
        #expect(plan.results.first?.rev == 3)
    }

    @Test func nothingMayLieBelowASymlinkWhateverTheOrderOfTheChanges() throws {
        var plan = CommitPlan(
            changes: [Self.change("l/x", base: 0), Self.change("l", base: 0, kind: .symlink, target: "/etc")],
            folderRev: 0, device: "dev", base: CommitSnapshot())
        #expect(plan.containmentReads() == CommitReads(paths: [], subtrees: ["l"]), "l was written: only what lies below it is read")
        plan.add(CommitSnapshot(below: ["l": []]))
        #expect(throws: APIError.self) { try plan.checkContainment() }

        var below = CommitPlan(changes: [Self.change("l/x", base: 0)], folderRev: 1, device: "dev", base: CommitSnapshot())
        #expect(below.containmentReads().paths == ["l"])
        let link = WireEntry(path: "l", kind: .symlink, size: 0, mtimeNs: 1, mode: 0o777, chunks: [], contentHash: "t", deleted: false, rev: 1, symlinkTarget: "/etc")
        below.add(CommitSnapshot(entries: ["l": link]))
        #expect(throws: APIError.self) { try below.checkContainment() }

        var replaced = CommitPlan(
            changes: [Self.change("l", base: 1, kind: .symlink, deleted: true), Self.change("l/x", base: 0)],
            folderRev: 1, device: "dev", base: CommitSnapshot(entries: ["l": link]))
        replaced.add(CommitSnapshot())
        try replaced.checkContainment()
    }
}
