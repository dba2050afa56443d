import PostgresNIO

/// The chunk index in PostgreSQL (the SQLite side is `ChunkIndex`; the same rules).
struct PostgresChunkIndex: ChunkIndexBackend {
    let store: PostgresMetadataStore
    private var client: PostgresClient { store.client }
    private var logger: Logger { store.logger }

    /// Pack ids of one start: `block << blockBits` + 1, 2, … (4 billion packs per start: at
    /// ten uploads a second, 13 years; 2^31 starts).
    static let blockBits: Int64 = 32

    func locations(of hashes: [String]) async throws -> [String: ChunkLocation] {
        guard !hashes.isEmpty else { return [:] }
        return try await store.run {
            var found: [String: ChunkLocation] = [:]
            for try await (hash, pack, offset, length, checksum) in try await client.query(
                "SELECT hash, pack_id, \"offset\", length, checksum FROM chunk_index WHERE hash = ANY(\(hashes))", logger: logger
            ).decode((String, Int64, Int64, Int64, Int64?).self) {
                found[hash] = ChunkLocation(pack: pack, offset: offset, length: length, checksum: checksum)
            }
            return found
        }
    }

    func locationsRenewing(_ hashes: [String], now: Int64, grace: Int64) async throws -> [String: ChunkLocation] {
        guard !hashes.isEmpty else { return [:] }
        return try await store.run {
            var found: [String: ChunkLocation] = [:]
            var stale: [String] = []
            for try await (hash, pack, offset, length, touched, checksum) in try await client.query(
                "SELECT hash, pack_id, \"offset\", length, touched_at, checksum FROM chunk_index WHERE hash = ANY(\(hashes))",
                logger: logger
            ).decode((String, Int64, Int64, Int64, Int64, Int64?).self) {
                found[hash] = ChunkLocation(pack: pack, offset: offset, length: length, checksum: checksum)
                if touched < now - grace / 2 { stale.append(hash) }
            }
            guard !stale.isEmpty else { return found }
            // What the collector dropped in between is not there any more: not found.
            var still = Set<String>()
            for try await hash in try await client.query(
                "UPDATE chunk_index SET touched_at = \(now) WHERE hash = ANY(\(stale)) RETURNING hash", logger: logger
            ).decode(String.self) { still.insert(hash) }
            for hash in stale where !still.contains(hash) { found[hash] = nil }
            return found
        }
    }

    func insert(
        _ chunks: [(hash: String, location: ChunkLocation)], pack: PackID, durableLength: Int64, sealed: Bool
    ) async throws -> [Bool] {
        try await store.run {
            try await client.withTransaction(logger: logger) { connection in
                let created = try await insert(
                    chunks, pack: pack, durableLength: durableLength, now: MetadataStore.nowSeconds(), connection)
                if sealed { try await connection.query("UPDATE packs SET sealed = TRUE WHERE id = \(pack)", logger: logger) }
                return created
            }
        }
    }

    private func insert(
        _ chunks: [(hash: String, location: ChunkLocation)], pack: PackID, durableLength: Int64, now: Int64,
        _ connection: PostgresConnection
    ) async throws -> [Bool] {
        var retired = false
        for try await flag in try await connection.query("SELECT retired FROM packs WHERE id = \(pack) FOR UPDATE", logger: logger)
            .decode(Bool.self)
        { retired = flag }
        if retired { throw PackRetired(pack: pack) }
        try await record(pack: pack, durableLength: durableLength, connection)
        guard !chunks.isEmpty else { return [] }
        var created = Set<String>()
        for try await hash in try await connection.query(
            """
            INSERT INTO chunk_index (hash, pack_id, "offset", length, touched_at, checksum)
            SELECT h, \(pack), o, l, \(now), CASE WHEN k THEN c END
            FROM unnest(\(chunks.map(\.hash))::text[], \(chunks.map(\.location.offset))::bigint[],
                        \(chunks.map(\.location.length))::bigint[], \(chunks.map { $0.location.checksum ?? 0 })::bigint[],
                        \(chunks.map { $0.location.checksum != nil })::boolean[]) AS u(h, o, l, c, k)
            ON CONFLICT (hash) DO NOTHING RETURNING hash
            """, logger: logger
        ).decode(String.self) { created.insert(hash) }
        // A hash twice in one batch: the first is the one indexed.
        var seen = Set<String>()
        return chunks.map { created.contains($0.hash) && seen.insert($0.hash).inserted }
    }

    /// The pack's row, its durable length only ever growing.
    private func record(pack: PackID, durableLength: Int64, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO packs (id, durable_length) VALUES (\(pack), \(durableLength))
            ON CONFLICT (id) DO UPDATE SET durable_length = GREATEST(packs.durable_length, EXCLUDED.durable_length)
            """, logger: logger)
    }

    func markSealed(_ packs: [PackID]) async throws {
        guard !packs.isEmpty else { return }
        try await store.run { try await client.query("UPDATE packs SET sealed = TRUE WHERE id = ANY(\(packs))", logger: logger) }
    }

    func packRows() async throws -> [PackID: ChunkIndex.PackRow] {
        try await store.run {
            var rows: [PackID: ChunkIndex.PackRow] = [:]
            for try await (id, length, sealed, retired) in try await client.query(
                "SELECT id, durable_length, sealed, retired FROM packs", logger: logger
            ).decode((Int64, Int64, Bool, Bool).self) { rows[id] = ChunkIndex.PackRow(durableLength: length, sealed: sealed, retired: retired) }
            return rows
        }
    }

    func reconcile(pack: PackID, verified: [ScannedRecord], validEnd: Int64, trustedEnd: Int64) async throws -> [String] {
        try await store.run {
            try await client.withTransaction(logger: logger) { connection in
                let good = Dictionary(verified.map { ($0.hash, $0.location) }, uniquingKeysWith: { first, _ in first })
                var dropped: [String] = []
                for try await (hash, offset, length) in try await connection.query(
                    "SELECT hash, \"offset\", length FROM chunk_index WHERE pack_id = \(pack)", logger: logger
                ).decode((String, Int64, Int64).self)
                where !ChunkLocation(pack: pack, offset: offset, length: length).isSamePlace(as: good[hash]) {
                    dropped.append(hash)
                }
                if !dropped.isEmpty {
                    try await connection.query(
                        "DELETE FROM chunk_index WHERE hash = ANY(\(dropped)) AND pack_id = \(pack)", logger: logger)
                }
                let fresh = verified.filter { $0.location.recordStart >= trustedEnd }
                _ = try await insert(
                    fresh.map { ($0.hash, $0.location) }, pack: pack, durableLength: validEnd, now: MetadataStore.nowSeconds(), connection)
                try await connection.query(
                    "UPDATE packs SET durable_length = \(validEnd), sealed = TRUE WHERE id = \(pack)", logger: logger)
                return dropped
            }
        }
    }

    func dropPack(_ pack: PackID) async throws -> [String] {
        try await store.run {
            try await client.withTransaction(logger: logger) { connection in
                var hashes: [String] = []
                for try await hash in try await connection.query(
                    "DELETE FROM chunk_index WHERE pack_id = \(pack) RETURNING hash", logger: logger
                ).decode(String.self) { hashes.append(hash) }
                try await connection.query("DELETE FROM packs WHERE id = \(pack)", logger: logger)
                return hashes
            }
        }
    }

    func totals() async throws -> (chunks: Int64, bytes: Int64) {
        try await store.run {
            for try await row in try await client.query(
                "SELECT count(*), COALESCE(sum(length), 0)::bigint FROM chunk_index", logger: logger
            ).decode((Int64, Int64).self) { return row }
            return (0, 0)
        }
    }

    func usage() async throws -> [PackUsage] {
        try await store.run {
            var usage: [PackUsage] = []
            for try await (pack, size, sealed, retired, chunks, bytes) in try await client.query(
                """
                SELECT p.id, p.durable_length, p.sealed, p.retired, count(c.hash), COALESCE(sum(c.length), 0)::bigint
                FROM packs p LEFT JOIN chunk_index c ON c.pack_id = p.id
                GROUP BY p.id ORDER BY p.id
                """, logger: logger
            ).decode((Int64, Int64, Bool, Bool, Int64, Int64).self) {
                usage.append(
                    PackUsage(
                        pack: pack, size: size, liveBytes: bytes + chunks * Int64(PackRecord.headerSize), liveChunks: Int(chunks),
                        sealed: sealed, retired: retired))
            }
            return usage
        }
    }

    func chunks(in pack: PackID) async throws -> [ScannedRecord] {
        try await store.run {
            var records: [ScannedRecord] = []
            for try await (hash, offset, length) in try await client.query(
                "SELECT hash, \"offset\", length FROM chunk_index WHERE pack_id = \(pack) ORDER BY \"offset\"", logger: logger
            ).decode((String, Int64, Int64).self) {
                records.append(ScannedRecord(hash: hash, location: ChunkLocation(pack: pack, offset: offset, length: length)))
            }
            return records
        }
    }

    func move(_ moves: [ChunkIndex.Move], out pack: PackID, written: [PackID: Int64], sealed: [PackID]) async throws -> Bool {
        try await store.run {
            try await client.withTransaction(logger: logger) { connection in
                for (target, length) in written.sorted(by: { $0.key < $1.key }) {
                    try await record(pack: target, durableLength: length, connection)
                }
                if !sealed.isEmpty {
                    try await connection.query("UPDATE packs SET sealed = TRUE WHERE id = ANY(\(sealed))", logger: logger)
                }
                if !moves.isEmpty {
                    // Only rows still where the copy was taken from move (a row dropped meanwhile stays dropped).
                    // The row takes the copy's checksum, taken from bytes just checked against the
                    // hash (decision 0028): one missing or wrong is set right.
                    try await connection.query(
                        """
                        UPDATE chunk_index c SET pack_id = u.tp, "offset" = u.tof, checksum = CASE WHEN u.k THEN u.ck END
                        FROM unnest(\(moves.map(\.hash))::text[], \(moves.map(\.from.pack))::bigint[], \(moves.map(\.from.offset))::bigint[],
                                    \(moves.map(\.to.pack))::bigint[], \(moves.map(\.to.offset))::bigint[],
                                    \(moves.map { $0.to.checksum ?? 0 })::bigint[], \(moves.map { $0.to.checksum != nil })::boolean[])
                             AS u(h, fp, fo, tp, tof, ck, k)
                        WHERE c.hash = u.h AND c.pack_id = u.fp AND c."offset" = u.fo
                        """, logger: logger)
                }
                return try await retireIfEmpty(pack, connection)
            }
        }
    }

    func retireIfEmpty(_ pack: PackID) async throws -> Bool {
        try await store.run { try await client.withTransaction(logger: logger) { try await retireIfEmpty(pack, $0) } }
    }

    private func retireIfEmpty(_ pack: PackID, _ connection: PostgresConnection) async throws -> Bool {
        var retired = false
        for try await flag in try await connection.query(
            """
            UPDATE packs SET retired = retired OR (sealed AND NOT EXISTS (SELECT 1 FROM chunk_index WHERE pack_id = \(pack)))
            WHERE id = \(pack) RETURNING retired
            """, logger: logger
        ).decode(Bool.self) { retired = flag }
        return retired
    }

    func forgetRetired(_ pack: PackID) async throws {
        try await store.run { try await client.query("DELETE FROM packs WHERE id = \(pack) AND retired", logger: logger) }
    }

    func firstPackID(filesKnown: PackID) async throws -> PackID {
        try await store.run {
            try await client.withTransaction(logger: logger) { connection in
                // Serialized with other starts: the block is beyond every pack any instance named.
                try await connection.execute("SELECT pg_advisory_xact_lock(\(PostgresMigrations.lockKey + 1))", logger: logger)
                var block: Int64 = 1
                for try await value in try await connection.query(
                    """
                    SELECT setval('pack_blocks', GREATEST(nextval('pack_blocks'),
                        (SELECT COALESCE(max(id), 0) FROM packs) / \(Int64(1) << Self.blockBits) + 1,
                        \(filesKnown) / \(Int64(1) << Self.blockBits) + 1))
                    """, logger: logger
                ).decode(Int64.self) { block = value }
                return block << Self.blockBits + 1
            }
        }
    }

    var shared: Bool { true }

    func claimPacks(at location: String) async throws {
        try await store.run {
            var holder = location
            try await client.withTransaction(logger: logger) { connection in
                // Not while a `storage copy` fills this database (it empties `pack_location`).
                try await connection.execute("LOCK TABLE storage_copy IN SHARE MODE", logger: logger)
                for try await source in try await connection.query("SELECT source FROM storage_copy", logger: logger)
                    .decode(String.self)
                { throw StorageCopy.unfinished(from: source) }
                for try await value in try await connection.query(
                    """
                    INSERT INTO pack_location (id, location, claimed_at) VALUES (1, \(location), \(MetadataStore.nowSeconds()))
                    ON CONFLICT (id) DO UPDATE SET location = pack_location.location RETURNING location
                    """, logger: logger
                ).decode(String.self) { holder = value }
            }
            guard holder == location else {
                throw APIError.invalidArgument(
                    "this database's packs are in \(holder), not in \(location): every server on one database must use the same "
                        + "blobs (several instances need one bucket and prefix; docs/operations.md says how to move them)")
            }
        }
    }

    /// Under a transaction-scoped advisory lock, taken on one connection in a transaction left
    /// open for the whole of `body` (which uses other connections): one storage round at a time
    /// across every instance. The lock ends with that transaction, also when its connection is
    /// lost (then another instance may start a round: rounds are safe against each other, only
    /// wasteful).
    func exclusively<T: Sendable>(_ body: () async throws -> T) async throws -> T? {
        try await store.run {
            try await client.withTransaction(logger: logger) { connection in
                var got = false
                for try await value in try await connection.query(
                    "SELECT pg_try_advisory_xact_lock(\(Self.storageRoundLock))", logger: logger
                ).decode(Bool.self) { got = value }
                guard got else { return nil }
                return try await body()
            }
        }
    }

    /// The advisory lock of storage rounds.
    static let storageRoundLock: Int64 = PostgresMigrations.lockKey + 2
}
