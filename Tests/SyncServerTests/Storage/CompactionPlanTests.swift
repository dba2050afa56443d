import Testing

@testable import SyncServerKit

/// What compaction decides for each pack, from the index's figures alone.
@Suite("Compaction plan")
struct CompactionPlanTests {
    static func pack(
        _ id: PackID, size: Int64 = 1000, live: Int64, chunks: Int? = nil, sealed: Bool = true, retired: Bool = false
    ) -> PackUsage {
        PackUsage(pack: id, size: size, liveBytes: live, liveChunks: chunks ?? (live > 0 ? 1 : 0), sealed: sealed, retired: retired)
    }

    @Test func emptyPacksAreDeletedSparseOnesRewrittenFullOnesKept() {
        let plan = CompactionPlan(
            packs: [Self.pack(4, live: 499), Self.pack(1, live: 0), Self.pack(3, live: 500), Self.pack(2, live: 1000)],
            current: nil, threshold: 0.5)
        #expect(plan == CompactionPlan(delete: [1], rewrite: [4]))
    }

    @Test func thePackBeingWrittenAndUnsealedPacksAreNeverTouched() {
        let plan = CompactionPlan(
            packs: [Self.pack(1, live: 0, sealed: false), Self.pack(2, live: 10), Self.pack(3, live: 0)], current: 3,
            threshold: 0.5)
        #expect(plan == CompactionPlan(delete: [], rewrite: [2]))
    }

    @Test func aRetiredPackIsDeletedAgainWhateverItsFigures() {
        let plan = CompactionPlan(packs: [Self.pack(7, live: 0, sealed: true, retired: true)], current: nil, threshold: 0)
        #expect(plan == CompactionPlan(delete: [7]))
    }

    @Test func thresholdZeroRewritesNothingButStillDeletesEmptyPacks() {
        let plan = CompactionPlan(packs: [Self.pack(1, live: 1), Self.pack(2, live: 0)], current: nil, threshold: 0)
        #expect(plan == CompactionPlan(delete: [2]))
    }

    @Test func thePackBeingWrittenIsSealedWhenItWouldQualify() {
        #expect(CompactionPlan.sealsCurrent(Self.pack(9, live: 100, sealed: false), threshold: 0.5))
        #expect(CompactionPlan.sealsCurrent(Self.pack(9, live: 0, sealed: false), threshold: 0))
        #expect(!CompactionPlan.sealsCurrent(Self.pack(9, live: 600, sealed: false), threshold: 0.5))
        #expect(!CompactionPlan.sealsCurrent(Self.pack(9, size: 0, live: 0, sealed: false), threshold: 0.5))
        #expect(!CompactionPlan.sealsCurrent(nil, threshold: 0.5))
    }
}
