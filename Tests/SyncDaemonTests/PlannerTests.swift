import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncDaemon

/// Exhaustive table of local × base × remote, and a seeded randomized check of invariants.
struct PlannerTests {
    static let h1 = String(repeating: "1", count: 64), h2 = String(repeating: "2", count: 64)
    static let h3 = String(repeating: "3", count: 64)

    static func remote(_ hash: String?, rev: Int64 = 5, kind: EntryKind = .file) -> WireEntry {
        WireEntry(
            path: "p", kind: kind, size: 1, mtimeNs: 0, mode: 0o644, chunks: [], contentHash: hash ?? h1,
            deleted: hash == nil, rev: rev)
    }

    static func base(_ hash: String?, rev: Int64 = 3) -> BaseRecord {
        BaseRecord(path: "p", kind: .file, rev: rev, contentHash: hash ?? h1, deleted: hash == nil)
    }

    static func local(_ hash: String?) -> LocalView { hash.map { LocalView(kind: .file, contentHash: $0) } ?? .absent }

    struct Row: Sendable, CustomStringConvertible {
        let local: String?
        let base: String??
        let remote: String?
        let expected: PlanAction
        init(local: String?, base: String??, remote: String?, expected: PlanAction) {
            self.local = local
            self.base = base
            self.remote = remote
            self.expected = expected
        }
        var description: String { "local \(local ?? "-") base \(String(describing: base)) remote \(remote ?? "-") → \(expected)" }
    }

    // base: nil = never synced; .some(nil) = tombstone; .some(h) = live with hash h.
    static let table: [Row] = [
        // Never synced here.
        Row(local: nil, base: nil, remote: h1, expected: .download),
        Row(local: nil, base: nil, remote: nil, expected: .adopt),
        Row(local: h1, base: nil, remote: h1, expected: .adopt),
        Row(local: h2, base: nil, remote: h1, expected: .conflict),
        Row(local: h2, base: nil, remote: nil, expected: .keepLocalEdit),
        // Synced, unchanged here.
        Row(local: h1, base: .some(h1), remote: h2, expected: .download),
        Row(local: h1, base: .some(h1), remote: nil, expected: .deleteLocal),
        // Synced, changed here.
        Row(local: h3, base: .some(h1), remote: h2, expected: .conflict),
        Row(local: h2, base: .some(h1), remote: h2, expected: .adopt),
        Row(local: h3, base: .some(h1), remote: nil, expected: .keepLocalEdit),
        // Synced, deleted here.
        Row(local: nil, base: .some(h1), remote: h2, expected: .download),
        Row(local: nil, base: .some(h1), remote: nil, expected: .adopt),
        // Remote is a new revision of the base's content (moved there, re-committed): not an edit.
        Row(local: h3, base: .some(h1), remote: h1, expected: .keepLocalEdit),
        Row(local: nil, base: .some(h1), remote: h1, expected: .keepLocalEdit),
        // Base is a tombstone.
        Row(local: nil, base: .some(nil), remote: h1, expected: .download),
        Row(local: h1, base: .some(nil), remote: h2, expected: .conflict),
        Row(local: h2, base: .some(nil), remote: h2, expected: .adopt),
    ]

    @Test(arguments: table)
    func decides(_ row: Row) {
        let base = row.base.map { Self.base($0) }
        #expect(Planner.plan(local: Self.local(row.local), base: base, remote: Self.remote(row.remote)) == row.expected)
    }

    @Test func sameRevisionIsNothing() {
        #expect(Planner.plan(local: Self.local(Self.h3), base: Self.base(Self.h1, rev: 5), remote: Self.remote(Self.h2, rev: 5)) == .nothing)
    }

    /// A feed entry older than the base (our own earlier commit, arriving after a newer
    /// push was recorded) must not put the old version back.
    @Test func anOlderRevisionThanTheBaseIsNothing() {
        #expect(Planner.plan(local: Self.local(Self.h3), base: Self.base(Self.h3, rev: 9), remote: Self.remote(Self.h1, rev: 7)) == .nothing)
        #expect(Planner.plan(local: .absent, base: Self.base(Self.h3, rev: 9), remote: Self.remote(Self.h1, rev: 7)) == .nothing)
    }

    @Test func directoriesOnBothSidesAgree() {
        let dir = Hashing.contentHash(chunks: [])
        #expect(Planner.plan(local: LocalView(kind: .directory, contentHash: dir), base: nil, remote: Self.remote(dir, kind: .directory)) == .adopt)
    }

    /// Invariants over random inputs: nothing local is ever lost (a changed local
    /// version is never simply overwritten or deleted), and equal sides never conflict.
    @Test(arguments: [1, 2, 3, 42, 1234] as [UInt64])
    func randomizedInvariants(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let hashes: [String?] = [nil, Self.h1, Self.h2, Self.h3]
        for _ in 0..<2_000 {
            let l = hashes[Int(rng.next() % 4)]
            let b: String?? = rng.next() % 4 == 0 ? nil : .some(hashes[Int(rng.next() % 4)])
            let r = hashes[Int(rng.next() % 4)]
            let base = b.map { Self.base($0) }
            let action = Planner.plan(local: Self.local(l), base: base, remote: Self.remote(r))
            let liveBaseHash = base.flatMap { $0.deleted ? nil : $0.contentHash }
            let localChanged = l != liveBaseHash
            if l != nil && localChanged && l != r {
                #expect(action == .conflict || action == .keepLocalEdit, "lost local edit: \(l ?? "-") \(String(describing: b)) \(r ?? "-") → \(action)")
            }
            if l == r { #expect(action == .adopt) }
        }
    }
}

/// Permission bits in the three-way comparison: a chmod alone travels, in either direction.
struct PlannerModeTests {
    static let h = String(repeating: "1", count: 64)

    static func remote(mode: UInt32, rev: Int64 = 5) -> WireEntry {
        WireEntry(path: "p", kind: .file, size: 1, mtimeNs: 0, mode: mode, chunks: [], contentHash: h, deleted: false, rev: rev)
    }

    static func base(mode: UInt32?) -> BaseRecord {
        BaseRecord(path: "p", kind: .file, rev: 3, contentHash: h, deleted: false, mode: mode)
    }

    @Test func aRemoteChmodIsAppliedHere() {
        let local = LocalView(kind: .file, contentHash: Self.h, mode: 0o644)
        #expect(Planner.plan(local: local, base: Self.base(mode: 0o644), remote: Self.remote(mode: 0o755)) == .setMode)
        // Never synced here, same content: the remote mode applies too.
        #expect(Planner.plan(local: local, base: nil, remote: Self.remote(mode: 0o755)) == .setMode)
        // Base from before modes were kept: the remote mode applies.
        #expect(Planner.plan(local: local, base: Self.base(mode: nil), remote: Self.remote(mode: 0o755)) == .setMode)
    }

    @Test func aLocalChmodGoesUpWhenTheRemoteKeptTheMode() {
        let local = LocalView(kind: .file, contentHash: Self.h, mode: 0o755)
        #expect(Planner.plan(local: local, base: Self.base(mode: 0o644), remote: Self.remote(mode: 0o644)) == .keepLocalEdit)
        // Both changed it differently: the remote one wins (no conflict copy for a mode).
        #expect(Planner.plan(local: local, base: Self.base(mode: 0o644), remote: Self.remote(mode: 0o600)) == .setMode)
    }

    @Test func sameModeOrUnknownModeIsAdopt() {
        let local = LocalView(kind: .file, contentHash: Self.h, mode: 0o644)
        #expect(Planner.plan(local: local, base: Self.base(mode: 0o644), remote: Self.remote(mode: 0o644)) == .adopt)
        #expect(Planner.plan(local: local, base: Self.base(mode: 0o644), remote: Self.remote(mode: 0)) == .adopt)
        // setuid is never compared (never set, never sent).
        #expect(Planner.plan(local: local, base: nil, remote: Self.remote(mode: 0o4644)) == .adopt)
        let link = LocalView(kind: .symlink, contentHash: Self.h)
        let remoteLink = WireEntry(
            path: "p", kind: .symlink, size: 0, mtimeNs: 0, mode: 0o777, chunks: [], contentHash: Self.h, deleted: false, rev: 5)
        #expect(Planner.plan(local: link, base: nil, remote: remoteLink) == .adopt)
    }

    @Test func aNewContentVersionOverwritesALocalChmod() {
        let local = LocalView(kind: .file, contentHash: Self.h, mode: 0o755)
        var remote = Self.remote(mode: 0o644)
        remote.contentHash = String(repeating: "2", count: 64)
        #expect(Planner.plan(local: local, base: Self.base(mode: 0o644), remote: remote) == .download)
    }
}

/// Remote entries are applied in an order the disk can take.
struct ApplyOrderTests {
    static func entry(_ path: String, _ kind: EntryKind, deleted: Bool = false) -> WireEntry {
        WireEntry(path: path, kind: kind, size: 0, mtimeNs: 0, mode: 0o644, chunks: [], contentHash: "h", deleted: deleted, rev: 1)
    }

    @Test func whatWasBelowADirectoryThatBecameAFileGoesFirst() {
        let live = [Self.entry("a", .directory), Self.entry("dir", .file), Self.entry("z", .file)]
        let gone = [Self.entry("old", .file, deleted: true), Self.entry("dir/x", .file, deleted: true), Self.entry("dir", .directory, deleted: true)]
        let order = RemoteApplier.order(live: live, gone: gone.sorted { $0.path > $1.path }, moveSources: [])
        #expect(order.map(\.path) == ["dir/x", "a", "dir", "z", "old", "dir"])
    }

    @Test func aMovedAwayChildStaysForItsArrival() {
        let live = [Self.entry("dir", .symlink), Self.entry("elsewhere/x", .file)]
        let gone = [Self.entry("dir/x", .file, deleted: true)]
        let order = RemoteApplier.order(live: live, gone: gone, moveSources: ["dir/x"])
        #expect(order.map(\.path) == ["dir", "elsewhere/x", "dir/x"])
    }

    @Test func withoutKindChangesLiveComesFirst() {
        let live = [Self.entry("a", .directory), Self.entry("a/b", .file)]
        let gone = [Self.entry("c/d", .file, deleted: true), Self.entry("c", .directory, deleted: true)]
        #expect(RemoteApplier.order(live: live, gone: gone, moveSources: []).map(\.path) == ["a", "a/b", "c/d", "c"])
    }
}

struct ConflictNameTests {
    static let date = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 11:06:40 UTC

    @Test func keepsExtensionAndDirectory() {
        #expect(ConflictName.make(for: "a/b/report.txt", device: "laptop", at: Self.date) == "a/b/report (conflict laptop 2026-11-18 110640).txt")
        #expect(ConflictName.make(for: "Makefile", device: "pc", at: Self.date) == "Makefile (conflict pc 2026-11-18 110640)")
        #expect(ConflictName.make(for: ".bashrc", device: "pc", at: Self.date) == ".bashrc (conflict pc 2026-11-18 110640)")
    }
}

struct DeleteGuardTests {
    @Test func waitsForLargeFractionsAndLargeCounts() {
        let g = DeleteGuard(maxFraction: 0.5, maxCount: 1_000)
        #expect(g.mustWait(deletes: 5, liveEntries: 5), "no small-folder exemption")
        #expect(g.mustWait(deletes: 80, liveEntries: 100))
        #expect(!g.mustWait(deletes: 50, liveEntries: 100))
        #expect(!g.mustWait(deletes: 40, liveEntries: 1000))
        #expect(g.mustWait(deletes: 1_001, liveEntries: 1_000_000), "an absolute count, whatever the fraction")
        #expect(!g.mustWait(deletes: 1_000, liveEntries: 1_000_000))
        #expect(!g.mustWait(deletes: 1, liveEntries: 1), "one delete is not a wave")
        #expect(!g.mustWait(deletes: 0, liveEntries: 0))
    }
}
