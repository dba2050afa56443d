import Foundation
import GRDB
import Logging

@testable import SyncServerKit

extension Fixture {
    /// One storage round (prune, collect, compact) as the server runs it, judged at `now`.
    func gc(at now: Date, retention: Duration = .seconds(30 * 86_400), compactBelow: Double = 0.5) async throws
        -> StorageGC.Report
    {
        try await StorageGC(
            metadata: server.metadata, chunks: server.chunks, retention: retention, compactBelow: compactBelow,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        ).run(now: now)
    }

    /// Chunk hashes the index holds.
    func indexedChunks() async throws -> Set<String> {
        Set(try await pool.read { db in try String.fetchAll(db, sql: "SELECT hash FROM chunk_index") })
    }

    /// Bytes of all pack files on disk.
    func packBytes() throws -> Int64 { try server.chunks.packsOnDisk().values.reduce(0, +) }
}

extension Date {
    static func inDays(_ days: Double) -> Date { Date().addingTimeInterval(days * 86_400) }
    static func inHours(_ hours: Double) -> Date { Date().addingTimeInterval(hours * 3600) }
}
