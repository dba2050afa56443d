import Foundation
import GRDB
import Testing
@testable import SyncServerKit

@Suite struct ZZBench {
    @Test func phases() async throws {
        try await Fixture.with { fixture in
            let pool = fixture.server.metadata.pool
            let clock = ContinuousClock()
            var t = clock.now
            try await pool.write { db in
                let s = try db.cachedStatement(sql: "SELECT path FROM entries WHERE folder_id = ? AND path = ?")
                for i in 0..<10_000 { _ = try Row.fetchOne(s, arguments: ["docs", "p\(i)"]) }
            }
            print("select x10k", clock.now - t); t = clock.now
            try await pool.write { db in
                let s = try db.cachedStatement(sql: "INSERT INTO versions (folder_id, rev, path, kind, size, mtime_ns, mode, chunks, content_hash, deleted, symlink_target, device_id, committed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                for i in 0..<10_000 {
                    s.setUncheckedArguments(["docs", i + 1, "p\(i)", "file", 1, 2, 3, "abc", "def", false, nil as String?, "dev", 5])
                    try s.execute()
                }
            }
            print("insert x10k", clock.now - t); t = clock.now
            try await pool.write { db in
                let s = try db.cachedStatement(sql: "INSERT INTO versions (folder_id, rev, path, kind, size, mtime_ns, mode, chunks, content_hash, deleted, symlink_target, device_id, committed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                for i in 10_000..<20_000 {
                    try s.execute(arguments: ["docs", i + 1, "p\(i)", "file", 1, 2, 3, "abc", "def", false, nil as String?, "dev", 5])
                }
            }
            print("insert2 x10k", clock.now - t); t = clock.now
            try await pool.write { db in
                for i in 20_000..<30_000 {
                    try db.execute(sql: "INSERT INTO versions (folder_id, rev, path, kind, size, mtime_ns, mode, chunks, content_hash, deleted, symlink_target, device_id, committed_at) VALUES ('docs', \(i), 'p', 'file', 1, 2, 3, 'abc', 'def', 0, NULL, 'dev', 5)")
                }
            }
            print("raw sql x10k", clock.now - t); t = clock.now
        }
    }
}
