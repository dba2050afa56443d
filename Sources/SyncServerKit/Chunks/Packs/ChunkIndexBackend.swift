/// Where each chunk is (hash → pack, offset, length) and which packs exist: `ChunkIndex` in
/// SQLite, `PostgresChunkIndex` in PostgreSQL (issue 10). Both keep the same rules: a row is
/// written only after its bytes are durable; a pack marked retired takes no new rows; the
/// collector drops only rows unreferenced and untouched for the grace period, checked again
/// in the transaction that drops them.
protocol ChunkIndexBackend: Sendable {
    func locations(of hashes: [String]) async throws -> [String: ChunkLocation]
    /// Like `locations`, and renews `touched_at` of the rows found that are older than half the
    /// grace period (a client was just told they are present).
    func locationsRenewing(_ hashes: [String], now: Int64, grace: Int64) async throws -> [String: ChunkLocation]
    /// Indexes chunks written durably up to `durableLength` of `pack`; true for each row that
    /// was new. Throws `PackRetired` if the pack is retired.
    func insert(
        _ chunks: [(hash: String, location: ChunkLocation)], pack: PackID, durableLength: Int64, sealed: Bool
    ) async throws -> [Bool]
    func markSealed(_ packs: [PackID]) async throws
    func packRows() async throws -> [PackID: ChunkIndex.PackRow]
    /// After verifying an unsealed pack: drops rows that do not match what was found, indexes
    /// records past `trustedEnd`, seals it at `validEnd`; returns the hashes dropped.
    func reconcile(pack: PackID, verified: [ScannedRecord], validEnd: Int64, trustedEnd: Int64) async throws -> [String]
    /// Forgets the pack and its rows; returns the hashes that were in it.
    func dropPack(_ pack: PackID) async throws -> [String]
    func totals() async throws -> (chunks: Int64, bytes: Int64)
    func usage() async throws -> [PackUsage]
    func chunks(in pack: PackID) async throws -> [ScannedRecord]
    /// Compaction: points the rows at their copies, then retires `pack` if nothing is left in it.
    func move(_ moves: [ChunkIndex.Move], out pack: PackID, written: [PackID: Int64], sealed: [PackID]) async throws -> Bool
    func retireIfEmpty(_ pack: PackID) async throws -> Bool
    func forgetRetired(_ pack: PackID) async throws
    /// Drops the rows of chunks no version references that were not touched in `grace`.
    func collectGarbage(now: Int64, grace: Int64) async throws -> ChunkGC.Dropped
    /// The first pack id this run may use: ids of earlier runs are never reused.
    func firstPackID(filesKnown: PackID) async throws -> PackID
    /// Whether other servers may use this index at the same time (PostgreSQL): then a start
    /// leaves objects no row names alone (another instance may be uploading them).
    var shared: Bool { get }
    /// Records where the packs are (`s3://bucket/prefix at endpoint`, or `host:directory`) and
    /// refuses a server that would keep them anywhere else (a shared index).
    func claimPacks(at location: String) async throws
    /// Runs `body` unless another server runs its own (a storage round) right now; nil then.
    func exclusively<T: Sendable>(_ body: () async throws -> T) async throws -> T?
}

extension ChunkIndexBackend {
    func locationsRenewing(_ hashes: [String]) async throws -> [String: ChunkLocation] {
        try await locationsRenewing(hashes, now: MetadataStore.nowSeconds(), grace: ChunkGC.graceSeconds)
    }
}

extension ChunkIndex: ChunkIndexBackend {
    func packRows() async throws -> [PackID: PackRow] { try packRowsBlocking() }

    func reconcile(pack: PackID, verified: [ScannedRecord], validEnd: Int64, trustedEnd: Int64) async throws -> [String] {
        try reconcileBlocking(pack: pack, verified: verified, validEnd: validEnd, trustedEnd: trustedEnd)
    }

    func dropPack(_ pack: PackID) async throws -> [String] { try dropPackBlocking(pack) }

    func collectGarbage(now: Int64, grace: Int64) async throws -> ChunkGC.Dropped {
        try await ChunkGC.collect(pool: pool, now: now, grace: grace)
    }

    func firstPackID(filesKnown: PackID) async throws -> PackID {
        max(filesKnown, try packRowsBlocking().keys.max() ?? 0) + 1
    }

    /// One server per SQLite file (the data directory's lock).
    var shared: Bool { false }

    func claimPacks(at location: String) async throws {}

    func exclusively<T: Sendable>(_ body: () async throws -> T) async throws -> T? { try await body() }
}
